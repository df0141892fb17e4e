package io.gpux.gateway.workload;

import io.gpux.proto.v1.WorkloadRuntime;
import io.gpux.proto.v1.WorkloadSpec;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A launch's checkpoint_dir: a plain name, or an absolute path the agent may allow. */
class SpecCheckCheckpointTest
{
    private static String problem(final String checkpoint)
    {
        return SpecCheck.problem(WorkloadSpec.newBuilder().setRuntime(WorkloadRuntime.WORKLOAD_PROCESS).setCommand("true")
            .setCheckpointDir(checkpoint).build());
    }

    @Test
    void namesAndAbsolutePathsPass()
    {
        assertNull(problem(""));
        assertNull(problem("train-llm.v2"));
        assertNull(problem("/mnt/shared/ckpt/train-llm"));
        assertNull(problem("/a"));
        assertNull(problem("/mnt/.hidden/x..y"));
    }

    @Test
    void escapesAndOddPathsAreRefused()
    {
        for (final String bad : new String[] {"..", ".", "a/b", "/", "/mnt/../etc", "/mnt/./x", "/mnt//x", "/mnt/x/",
            "/mnt/with space", "/mnt/\u0001", "/mnt/..", "/" + "x".repeat(1100)})
        {
            final String problem = problem(bad);
            assertTrue(problem != null && problem.startsWith("checkpoint_dir"), bad + ": " + problem);
        }
    }
}
