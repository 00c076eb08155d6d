package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * perftest's {@code --payload_file_path} ({@code create_payload}): a text file of 32-bit words such as
 * {@code 0xaaaaaaaa,0xbbbbbbbb}, each written little-endian, whose bytes (at most {@code -s} of them) repeat through
 * every test buffer in place of perftest's random bytes.
 */
final class Payload {
    private Payload() {
    }

    /** The pattern in {@code file}, cut at {@code size} bytes. */
    static byte[] read(Path file, long size) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new PerftestException("Failed to open '" + file + "' (as perftest)");
        } catch (IOException e) {
            throw new PerftestException("Failed to read payload file '" + file + "': " + e.getMessage());
        }
        if (text.isEmpty()) {
            throw new PerftestException("Payload size should be greater than 0 (" + file + "; as perftest)");
        }
        int length = (int) Math.min(size, (long) text.length()); // at most a byte per character of the file
        byte[] pattern = new byte[length];
        int count = 0;
        String[] words = text.strip().split("[,\n]");
        for (int w = 0; w < words.length && count < length; w++) {
            String word = words[w].strip();
            if (word.length() != 10 || !word.startsWith("0x") && !word.startsWith("0X")) {
                throw new PerftestException("Failed to parse DWORD number: " + w + " ('" + word + "' in " + file
                        + "; as perftest: 0x and 8 hex digits)");
            }
            for (int i = 8; i >= 2 && count < length; i -= 2) { // the last two digits are the first byte
                String digits = word.substring(i, i + 2);
                if (!HexFormat.isHexDigit(digits.charAt(0)) || !HexFormat.isHexDigit(digits.charAt(1))) {
                    throw new PerftestException("Invalid hex char in DWORD number: " + w + " ('" + word + "'; as"
                            + " perftest)");
                }
                pattern[count++] = (byte) HexFormat.fromHexDigits(digits);
            }
        }
        return java.util.Arrays.copyOf(pattern, count);
    }

    /** {@code buffer} filled with {@code pattern} repeated, as perftest's {@code create_single_mr}. */
    static void fill(MemorySegment buffer, byte[] pattern) {
        for (long i = 0; i < buffer.byteSize(); i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i, pattern[(int) (i % pattern.length)]);
        }
    }
}
