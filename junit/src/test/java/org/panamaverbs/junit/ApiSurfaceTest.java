package org.panamaverbs.junit;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.panamaverbs.surface.ApiSurface;

/** The kit's public API, every package its module exports, against {@code src/api/panama-verbs-junit.api}. */
class ApiSurfaceTest {
    @Test
    void theExportedApiIsTheCommittedFile() throws Exception {
        Path classes = Path.of("target/classes");
        ApiSurface.assertMatches(Path.of("src/api/panama-verbs-junit.api"),
                ApiSurface.of(classes, ApiSurface.exportedPackages(classes)));
    }
}
