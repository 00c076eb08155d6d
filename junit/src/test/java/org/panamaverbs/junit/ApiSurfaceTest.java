package org.panamaverbs.junit;

import org.junit.jupiter.api.Test;
import org.panamaverbs.surface.ApiSurface;

/** The kit's public API, every package its module exports, against {@code src/api/panama-verbs-junit.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        ApiSurface.assertExportsMatch("src/api/panama-verbs-junit.api");
    }
}
