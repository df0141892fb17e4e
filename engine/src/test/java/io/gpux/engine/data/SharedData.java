package io.gpux.engine.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Locates the shared public data ({@code ../shared/data} from the project root) without copying it:
 * walks up from the working directory (Surefire runs in the module directory, where it is
 * {@code ../../shared/data}) until some ancestor has a {@code shared/data} child.
 */
final class SharedData
{
    private SharedData()
    {
    }

    /** @return {@code shared/data}, or fails the test with the directories that were searched. */
    static Path root()
    {
        final Path start = Paths.get("").toAbsolutePath().normalize();
        final StringBuilder tried = new StringBuilder();
        for (Path dir = start; dir != null; dir = dir.getParent())
        {
            // dir/shared/data: the project root's sibling when dir is the root's parent
            final Path candidate = dir.resolve("shared").resolve("data");
            if (Files.isDirectory(candidate))
            {
                return candidate.normalize();
            }
            tried.append("\n  ").append(candidate);
        }
        return fail("shared test data not found: expected ../shared/data next to the project root (walked up from " +
            start + "), tried:" + tried);
    }

    /** @return a file or directory under {@code shared/data}, failing clearly when it is missing. */
    static Path resolve(final String relative)
    {
        final Path path = root().resolve(relative);
        if (!Files.exists(path))
        {
            fail("shared test data missing: " + path);
        }
        return path;
    }
}
