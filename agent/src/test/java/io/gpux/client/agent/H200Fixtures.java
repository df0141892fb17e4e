package io.gpux.client.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The nvidia-smi output captured on a real H200 ({@code shared/fixtures/gpu-h200}), found by walking
 * up from the working directory: the repository has {@code ../shared} next to it, a checkout that
 * carries it inside has {@code shared}.
 */
public final class H200Fixtures
{
    static final String FIXTURE_DIR = "shared/fixtures/gpu-h200";

    static final String UUID = "GPU-5f1d0c2e-0000-4000-8000-000000000001";

    private static Path dir;

    private H200Fixtures()
    {
    }

    public static synchronized Path dir()
    {
        if (dir == null)
        {
            dir = find();
        }
        return dir;
    }

    public static Path file(final String name)
    {
        return dir().resolve(name);
    }

    static String read(final String name)
    {
        try
        {
            return Files.readString(file(name), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path find()
    {
        final Path start = Path.of("").toAbsolutePath();
        for (Path d = start; d != null; d = d.getParent())
        {
            for (final Path candidate : new Path[]{ d.resolve(FIXTURE_DIR), d.resolve("..").resolve(FIXTURE_DIR) })
            {
                if (Files.isDirectory(candidate))
                {
                    return candidate.normalize();
                }
            }
        }
        throw new IllegalStateException("no " + FIXTURE_DIR + " or ../" + FIXTURE_DIR + " above " + start);
    }
}
