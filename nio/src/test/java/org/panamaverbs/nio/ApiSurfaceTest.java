package org.panamaverbs.nio;

import org.junit.jupiter.api.Test;
import org.panamaverbs.surface.ApiSurface;

/** The module's public API (the provider alone) against {@code src/api/panama-verbs-nio.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        ApiSurface.assertExportsMatch("src/api/panama-verbs-nio.api");
    }
}
