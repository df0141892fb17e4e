package io.gpux.client.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobFileParserTest
{
    private static final String GOOD_PROCESS = String.join("\n",
        "name: train-llm",
        "resources: {market: H200-141G, gpus: 2, maxPrice: 3.20, gang: true, minReliability: 0.99, region: eu}",
        "run: {runtime: process, command: \"python train.py --steps 1000\"}",
        "env: {BATCH: \"64\", LR: 0.001}",
        "ports: [8888]",
        "checkpoint: {dir: ./ckpt, maxMb: 512}",
        "maxFailures: 5",
        "");

    private static final String GOOD_DOCKER = String.join("\n",
        "name: serve",
        "resources:",
        "  market: H100-SXM-80G",
        "  gpus: 1",
        "  maxPrice: 2",
        "run:",
        "  runtime: docker",
        "  image: nvcr.io/nvidia/pytorch:24.05-py3",
        "  command: python",
        "  args: [serve.py, --port, \"8000\"]",
        "ports: [8000, 22]",
        "sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB me@laptop\"",
        "");

    private final JobFileParser parser = new JobFileParser();

    @Test
    void readsAProcessJobFromAFile(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("job.yaml");
        Files.writeString(file, GOOD_PROCESS, StandardCharsets.UTF_8);

        final JobFile job = parser.parse(file);

        assertEquals("train-llm", job.name());
        assertEquals(new JobFile.Resources("H200-141G", 2, 32_000, true, 990_000_000L, "eu"), job.resources());
        assertEquals(WorkloadSpec.Runtime.PROCESS, job.workload().runtime());
        assertEquals("python train.py --steps 1000", job.workload().command());
        assertEquals(Map.of("BATCH", "64", "LR", "0.001"), job.workload().env());
        assertEquals(List.of(8888), job.workload().ports());
        assertEquals(new JobFile.Checkpoint(dir.toAbsolutePath().resolve("ckpt"), 512), job.checkpoint());
        assertEquals(5, job.maxFailures());
    }

    @Test
    void readsADockerJobWithDefaults() throws Exception
    {
        final JobFile job = parser.parse("job.yaml", GOOD_DOCKER, Path.of("/jobs"));

        assertEquals(new JobFile.Resources("H100-SXM-80G", 1, 20_000, false, 0, null), job.resources());
        final WorkloadSpec spec = job.workload();
        assertEquals(WorkloadSpec.Runtime.DOCKER, spec.runtime());
        assertEquals("nvcr.io/nvidia/pytorch:24.05-py3", spec.image());
        assertEquals("python", spec.command());
        assertEquals(List.of("serve.py", "--port", "8000"), spec.args());
        assertEquals(List.of(8000, 22), spec.ports());
        assertEquals("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB me@laptop", spec.sshPublicKey());
        assertNull(job.checkpoint());
        assertEquals(JobFile.DEFAULT_MAX_FAILURES, job.maxFailures());
        assertTrue(spec.env().isEmpty());
        assertFalse(job.resources().gang());
    }

    static Stream<Arguments> badFiles()
    {
        final String res = "resources: {market: H200-141G, gpus: 2, maxPrice: 3.20}\n";
        final String run = "run: {runtime: process, command: train}\n";
        return Stream.of(
            Arguments.of("", "job.yaml: the file is empty"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: 0, maxPrice: 1}\n" + run,
                "job.yaml line 2: resources.gpus: must be 1 to 1024, got 0"),
            Arguments.of("name: a\n" + res + run + "\n\nnmae: x\n",
                "job.yaml line 6: nmae: unknown field; known: name, resources, run, env, ports, sshPublicKey, checkpoint, maxFailures"),
            Arguments.of("name: a\nresources:\n  market: H200-141G\n  gpus: 2\n  maxPrice: 3.20\n  colour: red\n" + run,
                "job.yaml line 6: resources.colour: unknown field; known: market, gpus, maxPrice, gang, minReliability, region"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: 2, maxPrice: 3.20001}\n" + run,
                "job.yaml line 2: resources.maxPrice: must be a price with at most 4 decimal places, got '3.20001'"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: 2, maxPrice: 0}\n" + run,
                "job.yaml line 2: resources.maxPrice: must be above 0, got '0'"),
            Arguments.of("name: a\nresources: {market: h200, gpus: 2, maxPrice: 1}\n" + run,
                "job.yaml line 2: resources.market: must be 2 to 32 of A-Z 0-9 - . _, got 'h200'"),
            Arguments.of("name: a\nresources: {gpus: 2, maxPrice: 1}\n" + run,
                "job.yaml line 2: resources.market: missing"),
            Arguments.of("name: a\n" + run,
                "job.yaml line 1: resources: missing"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: two, maxPrice: 1}\n" + run,
                "job.yaml line 2: resources.gpus: must be 1 to 1024, got 'two'"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: 2, maxPrice: 1, minReliability: 1.5}\n" + run,
                "job.yaml line 2: resources.minReliability: must be a fraction from 0 to 1 with at most 9 decimal places, got '1.5'"),
            Arguments.of("name: a\nresources: {market: H200-141G, gpus: 2, maxPrice: 1, gang: yes please}\n" + run,
                "job.yaml line 2: resources.gang: must be true or false, got 'yes please'"),
            Arguments.of("name: a\n" + res + "run: {runtime: vm, command: x}\n",
                "job.yaml line 3: run.runtime: must be process or docker, got 'vm'"),
            Arguments.of("name: a\n" + res + "run: {runtime: process}\n",
                "job.yaml line 3: run.command: missing"),
            Arguments.of("name: a\n" + res + "run: {runtime: process, command: x, image: ubuntu}\n",
                "job.yaml line 3: run.image: only for runtime docker"),
            Arguments.of("name: a\n" + res + "run: {runtime: docker}\n",
                "job.yaml line 3: run.image: missing"),
            Arguments.of("name: a\n" + res + "run: {runtime: docker, image: \"Ubuntu latest\"}\n",
                "job.yaml line 3: run.image: must be an image reference such as nvcr.io/nvidia/pytorch:24.05-py3, got 'Ubuntu latest'"),
            Arguments.of("name: a\n" + res + run + "ports: [8888, 70000]\n",
                "job.yaml line 4: ports[1]: must be 1 to 65535, got 70000"),
            Arguments.of("name: a\n" + res + run + "ports: [22, 22]\n",
                "job.yaml line 4: ports[1]: 22 is listed twice"),
            Arguments.of("name: a\n" + res + run + "env: {GPUX_LEASE_ID: \"1\"}\n",
                "job.yaml line 4: env.GPUX_LEASE_ID: set by the agent, not by the job"),
            Arguments.of("name: a\n" + res + run + "env: {CUDA_VISIBLE_DEVICES: \"0\"}\n",
                "job.yaml line 4: env.CUDA_VISIBLE_DEVICES: set by the agent, not by the job"),
            Arguments.of("name: a\n" + res + "run: {runtime: docker, image: ubuntu}\nsshPublicKey: hunter2\n",
                "job.yaml line 4: sshPublicKey: must be one OpenSSH public key line such as 'ssh-ed25519 AAAA... me@laptop'"),
            Arguments.of("name: a\n" + res + run + "sshPublicKey: ssh-ed25519 AAAA\n",
                "job.yaml line 4: sshPublicKey: only for runtime docker"),
            Arguments.of("name: a\n" + res + run + "checkpoint: {maxMb: 5}\n",
                "job.yaml line 4: checkpoint.dir: missing"),
            Arguments.of("name: a\n" + res + run + "checkpoint: {dir: c, maxMb: 0}\n",
                "job.yaml line 4: checkpoint.maxMb: must be 1 to 1048576, got 0"),
            Arguments.of("name: a\n" + res + run + "maxFailures: 101\n",
                "job.yaml line 4: maxFailures: must be 0 to 100, got 101"),
            Arguments.of("name: -a\n" + res + run,
                "job.yaml line 1: name: must be 1 to 63 of A-Z a-z 0-9 . _ - starting with a letter or digit, got '-a'"),
            Arguments.of("name: a\nname: b\n" + res + run,
                "job.yaml line 2: name: given twice"),
            Arguments.of("- a\n- b\n",
                "job.yaml line 1: the file: must be a map, got a list"),
            Arguments.of("name: a\nresources: [1, 2]\n" + run,
                "job.yaml line 2: resources: must be a map, got a list"));
    }

    @ParameterizedTest
    @MethodSource("badFiles")
    void refusesABadFileWithItsLineAndField(final String yaml, final String message)
    {
        final JobFileException ex = assertThrows(JobFileException.class, () -> parser.parse("job.yaml", yaml, Path.of("/")));
        assertEquals(message, ex.getMessage());
    }

    @Test
    void malformedYamlNamesItsLine()
    {
        final JobFileException ex = assertThrows(JobFileException.class,
            () -> parser.parse("job.yaml", "name: a\nresources: {market: H200\n  gpus: [\n", Path.of("/")));
        assertTrue(ex.getMessage().startsWith("job.yaml line "), ex.getMessage());
        assertTrue(ex.getMessage().contains("not valid YAML: "), ex.getMessage());
        assertFalse(ex.getMessage().contains("\n"), ex.getMessage());
    }

    @Test
    void anUnreadableFileSaysWhy(@TempDir final Path dir)
    {
        final JobFileException ex = assertThrows(JobFileException.class, () -> parser.parse(dir.resolve("none.yaml")));
        assertTrue(ex.getMessage().startsWith("none.yaml: cannot read: "), ex.getMessage());
    }
}
