package org.panamaverbs.netty;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.panamaverbs.surface.ApiSurface;

/** The transport's public API (both of its packages) against {@code src/api/panama-verbs-netty.api}. */
class ApiSurfaceTest {
    @Test
    void thePublicApiIsTheCommittedFile() throws Exception {
        ApiSurface.assertMatches(Path.of("src/api/panama-verbs-netty.api"), ApiSurface.of(Path.of("target/classes"),
                List.of("org.panamaverbs.netty", "org.panamaverbs.netty.grpc")));
    }
}
