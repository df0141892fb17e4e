package io.gpux.client.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A shell script standing in for nvidia-smi: it prints the output captured on a real H200
 * ({@code shared/fixtures/gpu-h200}, one GPU), found by walking up from the working directory.
 */
final class FakeNvidiaSmi
{
    private static final String FIXTURES = "shared/fixtures/gpu-h200";

    private FakeNvidiaSmi()
    {
    }

    /** Writes the script into the directory; its path. */
    static Path write(final Path dir) throws IOException
    {
        Path fixtures = null;
        for (Path d = Path.of("").toAbsolutePath(); d != null && fixtures == null; d = d.getParent())
        {
            for (final Path candidate : new Path[] {d.resolve(FIXTURES), d.resolve("..").resolve(FIXTURES)})
            {
                if (fixtures == null && Files.isDirectory(candidate))
                {
                    fixtures = candidate.normalize();
                }
            }
        }
        if (fixtures == null)
        {
            throw new IOException(FIXTURES + " not found above " + Path.of("").toAbsolutePath());
        }
        final Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n"
            + "  --query-gpu=timestamp,*) head -n 2 '" + fixtures.resolve("telemetry-load.csv") + "' ;;\n"
            + "  *) cat '" + fixtures.resolve("query-idle.csv") + "' ;;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }
}
