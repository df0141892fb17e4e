package io.gpux.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Finds the project's shared data ({@code ../shared/data} from the project root) from any working directory. */
final class DataFiles
{
    static final String GOOG_10 = "lobster/LOBSTER_SampleFile_GOOG_2012-06-21_10.zip";

    private DataFiles()
    {
    }

    /**
     * @param explicit a path given by the user (e.g. JMH {@code -p lobsterZip=...}); empty to search.
     * @param relative a file under the data directory, e.g. {@link #GOOG_10}.
     */
    static File find(final String explicit, final String relative)
    {
        if (explicit != null && !explicit.isEmpty())
        {
            final File f = new File(explicit);
            if (!f.isFile())
            {
                throw new UncheckedIOException(new IOException("no such file: " + f.getAbsolutePath()));
            }
            return f;
        }
        final String env = System.getenv("GPUX_DATA");
        if (env != null && new File(env, relative).isFile())
        {
            return new File(env, relative);
        }
        final StringBuilder tried = new StringBuilder();
        for (File dir = new File("").getAbsoluteFile(); dir != null; dir = dir.getParentFile())
        {
            for (final String base : new String[]{"shared/data", "../shared/data"})
            {
                final File f = new File(new File(dir, base), relative);
                tried.append("\n  ").append(f.getPath());
                if (f.isFile())
                {
                    try
                    {
                        return f.getCanonicalFile();
                    }
                    catch (final IOException e)
                    {
                        return f;
                    }
                }
            }
        }
        throw new UncheckedIOException(new IOException(
            "cannot find " + relative + " (pass -p lobsterZip=PATH or set GPUX_DATA); tried:" + tried));
    }
}
