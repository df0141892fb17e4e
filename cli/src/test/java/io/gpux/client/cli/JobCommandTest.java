package io.gpux.client.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class JobCommandTest
{
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        return GpuxCli.commandLine(new GpuxCli(Map.of())).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    }

    @Test
    void aGoodFileSaysWhatItAsksFor() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("job.yaml"), String.join("\n",
            "name: train-llm",
            "resources: {market: H200-141G, gpus: 2, maxPrice: 3.20, gang: true, region: eu}",
            "run: {runtime: process, command: \"python train.py --steps 1000\"}",
            "checkpoint: {dir: ./ckpt, maxMb: 512}",
            "maxFailures: 5",
            ""));

        assertEquals(0, run("job", "check", file.toString()), err.toString());
        assertEquals(String.join(System.lineSeparator(),
            "train-llm: 2 GPUs of H200-141G at up to 3.2000, on one machine, in eu",
            "runs: process python train.py --steps 1000",
            "checkpoint: " + dir.toAbsolutePath().resolve("ckpt") + " (up to 512 MB), up to 5 failed attempts",
            ""), out.toString());

        assertEquals(0, run("job", "check", "--json", file.toString()), err.toString());
        assertEquals("{\"type\":\"job\",\"name\":\"train-llm\",\"market\":\"H200-141G\",\"gpus\":2,\"max_price\":\"3.2000\","
            + "\"gang\":true,\"runtime\":\"process\",\"max_failures\":5,\"command\":\"python train.py --steps 1000\","
            + "\"checkpoint_dir\":\"" + dir.toAbsolutePath().resolve("ckpt") + "\",\"checkpoint_max_mb\":512}",
            out.toString().split("\\R")[3]);
        JsonRules.check(out.toString().split("\\R")[3]);
    }

    @Test
    void aBadFileIsOneLineAndStatus2() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("job.yaml"),
            "name: a\nresources: {market: H200-141G, gpus: 0, maxPrice: 1}\nrun: {runtime: process, command: x}\n");

        assertEquals(2, run("job", "check", file.toString()));
        assertEquals("gpux job check: job.yaml line 2: resources.gpus: must be 1 to 1024, got 0" + System.lineSeparator(),
            err.toString());
        assertEquals("", out.toString());
    }
}
