package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import io.gpux.client.agent.H200Fixtures;
import io.gpux.client.agent.NvidiaSmi;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

/**
 * The eight GPUs of an H200 machine, discovered by the agent's own nvidia-smi parser from the captured
 * {@code query-idle.csv}, its GPU line repeated with UUIDs ending 1 to 8.
 */
final class EightH200s
{
    private EightH200s()
    {
    }

    static List<GpuInfo> discover(final Path dir) throws Exception
    {
        final String[] lines = Files.readString(H200Fixtures.file("query-idle.csv"), StandardCharsets.UTF_8).split("\n");
        final StringBuilder output = new StringBuilder(lines[0]).append('\n');
        for (int i = 1; i <= 8; i++)
        {
            output.append(lines[1].replace("000000000001", "00000000000" + i)).append('\n');
        }
        final Path csv = Files.writeString(dir.resolve("eight.csv"), output);
        final Path smi = executable(dir.resolve("nvidia-smi"), "#!/bin/sh\ncat '" + csv + "'\n");
        return new NvidiaSmi(smi.toString(), Duration.ofSeconds(10)).discover();
    }

    static Path executable(final Path file, final String script) throws Exception
    {
        Files.writeString(file, script, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
