package org.panamaverbs.rsocket;

import org.junit.jupiter.api.Test;
import org.panamaverbs.surface.ApiSurface;

/** The protocol's public API, every package its module exports, against {@code src/api/panama-verbs-rsocket.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        ApiSurface.assertExportsMatch("src/api/panama-verbs-rsocket.api");
    }
}
