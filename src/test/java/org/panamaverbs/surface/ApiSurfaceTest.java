package org.panamaverbs.surface;

import org.junit.jupiter.api.Test;

/** The library's public API, every package its module exports, against {@code src/api/panama-verbs.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        ApiSurface.assertExportsMatch("src/api/panama-verbs.api");
    }
}
