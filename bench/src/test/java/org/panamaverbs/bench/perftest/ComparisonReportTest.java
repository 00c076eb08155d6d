package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonReportTest {
    @Test
    void mediansAndPerPairRatios(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("c.csv");
        Files.writeString(csv, String.join("\n", "tool,size,pair,impl,value",
                "ib_write_bw,64,1,c,10", "ib_write_bw,64,1,java,8",
                "ib_write_bw,64,2,c,20", "ib_write_bw,64,2,java,30",
                "ib_write_bw,64,3,c,12", "ib_write_bw,64,3,java,12",
                "ib_send_lat,2,1,c,5", "ib_send_lat,2,1,java,", // a failed run leaves the value empty
                "ib_send_lat,2,2,c,7", "ib_send_lat,2,2,java,14"));
        List<ComparisonReport.Point> points = ComparisonReport.read(csv);
        assertEquals(2, points.size());
        ComparisonReport.Point bw = points.stream().filter(p -> p.tool().equals("ib_write_bw")).findFirst().orElseThrow();
        assertEquals(12.0, bw.cMedian());
        assertEquals(12.0, bw.javaMedian());
        assertEquals(List.of(0.8, 1.5, 1.0), bw.ratios());
        String md = ComparisonReport.markdown(points);
        assertTrue(md.contains("| ib_write_bw | 64 | 12.00 Mpps | 12.00 Mpps | 1.00 | 0.80-1.50 | 3 | 83% | 183% |"), md);
        ComparisonReport.Point lat = points.stream().filter(p -> p.tool().equals("ib_send_lat")).findFirst().orElseThrow();
        assertEquals(List.of(2.0), lat.ratios()); // only pair 2 ran on both sides
        assertTrue(md.contains("| ib_send_lat | 2 | 6.000 µs | 14.00 µs | 2.00 | 2.00-2.00 | 1 | 33% | 0% |"), md);
        String svg = ComparisonReport.svg(points);
        assertTrue(svg.startsWith("<svg") && svg.contains("ib_send_lat") && svg.contains("stroke-dasharray"), svg);
    }
}
