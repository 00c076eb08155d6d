/** The programs README.md and docs/guide show; each is a plain {@code main}. */
// snippet:module
module org.panamaverbs.examples {
    requires org.panamaverbs;
}
// end-snippet
