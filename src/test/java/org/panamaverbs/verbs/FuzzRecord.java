package org.panamaverbs.verbs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a fuzzer's steps ended in ({@code FuzzDeviceTest}, {@code CmFuzzDeviceTest}): a count per step name and outcome, and the
 * findings, steps that threw what the API does not document. Safe to use from several threads.
 */
public final class FuzzRecord {
    /** Thrown by a step that needs an object of a kind the pool has none of; counted as "nothing to use". */
    public static final class EmptyPool extends RuntimeException {
        /** Without a stack trace: thrown often, never a finding. */
        public EmptyPool() {
            super(null, null, false, false);
        }
    }

    private final List<Class<? extends Throwable>> documented;
    private final Map<String, Integer> outcomes = new TreeMap<>();
    private final List<String> findings = Collections.synchronizedList(new ArrayList<>());

    /** A record whose steps may throw the {@code documented} exceptions (and their subclasses). */
    public FuzzRecord(List<Class<? extends Throwable>> documented) {
        this.documented = List.copyOf(documented);
    }

    /** Runs one step and records its outcome; an undocumented exception is a finding, printed with its stack. */
    public void run(String where, String name, Runnable op) {
        String outcome;
        try {
            op.run();
            outcome = "ok";
        } catch (EmptyPool nothing) {
            outcome = "nothing to use";
        } catch (Throwable t) {
            outcome = t.getClass().getSimpleName();
            if (!isDocumented(t)) {
                finding(where + " (" + name + "): " + t);
                t.printStackTrace(System.out);
            }
        }
        synchronized (outcomes) {
            outcomes.merge(name + " -> " + outcome, 1, Integer::sum);
        }
    }

    /** Whether the API documents {@code t} for misuse. */
    public boolean isDocumented(Throwable t) {
        return documented.stream().anyMatch(c -> c.isInstance(t));
    }

    /** Records what a step found besides an exception (a call that succeeded but must not have, a hang). */
    public void finding(String text) {
        findings.add(text);
    }

    /** {@return the findings so far (a copy)} */
    public List<String> findings() {
        synchronized (findings) {
            return List.copyOf(findings);
        }
    }

    /** {@return the outcome counts, for the log} */
    public String outcomes() {
        synchronized (outcomes) {
            return outcomes.toString();
        }
    }
}
