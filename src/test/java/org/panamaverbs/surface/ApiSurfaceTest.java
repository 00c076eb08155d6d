package org.panamaverbs.surface;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The library's public API, every package its module exports, against {@code src/api/panama-verbs.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        Path classes = Path.of("target/classes");
        ApiSurface.assertMatches(Path.of("src/api/panama-verbs.api"),
                ApiSurface.of(classes, ApiSurface.exportedPackages(classes)));
    }
}
