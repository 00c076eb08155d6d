package com.ibm.disni.programs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import org.junit.jupiter.api.Test;

/**
 * The DiSNI-style programs of src/test/programs compile against the published disni-2.1.jar alone, as a user's
 * programs do before they swap the jar (no device needed). The classes it leaves in {@code target/programs} are
 * the ones the device tests ({@link ProgramsDeviceTest}, {@link FaultsDeviceTest}) run.
 */
class ProgramsCompileTest {
    @Test
    void theProgramsCompileAgainstTheReferenceJar() throws IOException {
        ProgramProcess.compilePrograms();
        assertTrue(ProgramProcess.compiledProgramsUpToDate(), "every program has its class in target/programs");
    }
}
