package io.gpux.client.agent;

import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.client.workload.JobFile;
import io.gpux.client.workload.JobFileParser;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where a launch's checkpoint is on the agent's machine: a name under the state directory, or an allowed absolute path. */
class AgentCheckpointPathTest
{
    private static final String JOB = "name: train\nresources: {market: H200-141G, gpus: 1, maxPrice: 2}\n"
        + "run: {runtime: process, command: \"true\"}\n";

    @Test
    void aNameIsUnderTheStateDirectoryAndAnAbsolutePathOnlyUnderAnAllowedPrefix()
    {
        final WorkloadSupervisorContext context = new WorkloadSupervisorContext().stateDir(Path.of("/var/gpux"))
            .allowCheckpointPath(Path.of("/mnt/shared"));
        try (AgentWorkloads workloads = new AgentWorkloads(null, context, 100, line -> { }))
        {
            assertEquals(Path.of("/var/gpux/checkpoints/train"), workloads.checkpointDir("train"));
            assertEquals(Path.of("/mnt/shared/ckpt/train"), workloads.checkpointDir("/mnt/shared/ckpt/train"));
            assertNull(workloads.checkpointDir("/mnt/shared/../etc"), "normalized before the prefix is checked");
            assertNull(workloads.checkpointDir("/mnt/shared"), "the prefix itself is not a job's directory");
            assertNull(workloads.checkpointDir("/mnt/sharedother/x"));
            assertNull(workloads.checkpointDir("../escape"), "a name is a plain name");
            assertNull(workloads.checkpointDir(".."));
        }
    }

    @Test
    void anAgentThatAllowsNoPathSaysSo()
    {
        final WorkloadSupervisorContext context = new WorkloadSupervisorContext().stateDir(Path.of("/var/gpux"));
        try (AgentWorkloads workloads = new AgentWorkloads(null, context, 100, line -> { }))
        {
            assertNull(workloads.checkpointDir("/mnt/shared/ckpt"));
            assertEquals("checkpoint path /mnt/shared/ckpt is not allowed on this machine (it allows none)",
                workloads.checkpointRefusal("/mnt/shared/ckpt"));
        }
        final WorkloadSupervisorContext allowing = new WorkloadSupervisorContext().stateDir(Path.of("/var/gpux"))
            .allowCheckpointPath(Path.of("/mnt/a")).allowCheckpointPath(Path.of("/mnt/b"));
        try (AgentWorkloads workloads = new AgentWorkloads(null, allowing, 100, line -> { }))
        {
            assertEquals("checkpoint path /srv/x is not allowed on this machine (it allows paths under /mnt/a, /mnt/b)",
                workloads.checkpointRefusal("/srv/x"));
        }
    }

    @Test
    void aJobFileWithAnAbsoluteCheckpointSendsItsPathAndARelativeOneItsName() throws Exception
    {
        final JobFileParser parser = new JobFileParser();
        final JobFile shared = parser.parse("job.yaml", JOB + "checkpoint: {dir: /mnt/shared/ckpt/train}\n", Path.of("/jobs"));
        assertTrue(shared.checkpoint().shared());
        assertEquals("/mnt/shared/ckpt/train", shared.checkpointOnWire());
        final JobFile local = parser.parse("job.yaml", JOB + "checkpoint: {dir: ./ckpt}\n", Path.of("/jobs"));
        assertEquals(new JobFile.Checkpoint(Path.of("/jobs/ckpt"), 1024), local.checkpoint());
        assertEquals("train", local.checkpointOnWire());
        assertNull(parser.parse("job.yaml", JOB, Path.of("/jobs")).checkpointOnWire());
    }
}
