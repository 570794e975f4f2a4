"""English words the title tests draw and judge titles by (shared by
test_titles and test_headlines, which imports no test module inside a
@given test: hypothesis fails a test that applies @given while it runs)."""

# Words that announce more (review 16, finding 17: "…release.yml through…"):
# articles, the commonest English prepositions and conjunctions, auxiliaries.
DANGLING = {"a", "an", "the", "of", "to", "for", "with", "and", "or", "in", "on", "at", "by",
            "through", "across", "between", "after", "before", "because", "without",
            "during", "until", "against", "toward", "would", "should", "could", "can",
            "have", "has", "is", "are", "my", "your", "their", "when", "while", "how"}

# English function words: those above and the other pronouns, determiners,
# auxiliaries and conjunctions.
FUNCTION = DANGLING | {
    "so", "it", "its", "this", "that", "these", "those", "i", "we", "you", "they", "he",
    "she", "be", "been", "being", "was", "were", "do", "does", "did", "not", "no", "if",
    "than", "then", "as", "from", "into", "via", "about", "over", "under", "some", "any",
    "each", "all", "both", "nor", "yet", "but", "which", "who", "what", "where", "why",
    "will", "shall", "may", "might", "must", "had", "am", "our", "his", "her", "e.g"}
