package io.gpux.tools;

import io.gpux.engine.replay.ScenarioReplayer;
import io.gpux.engine.replay.ScenarioException;
import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * {@code gpux replay FILE}: runs a scenario through the matching engine and prints every event. Bad
 * input prints the events of all earlier lines, then {@code gpux replay: FILE: line N: problem} on
 * standard error, and exits with status 2.
 */
public final class ReplayMain
{
    private ReplayMain()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args));
    }

    static int run(final String[] args)
    {
        if (args.length != 1 || args[0].equals("--help") || args[0].equals("-h"))
        {
            System.err.println("usage: gpux replay FILE   (FILE '-' reads standard input)");
            return 2;
        }
        final String file = args[0];
        final Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        try (InputStream in = file.equals("-") ? System.in : new FileInputStream(file))
        {
            try
            {
                new ScenarioReplayer(out).replay(new InputStreamReader(in, StandardCharsets.UTF_8));
                out.flush();
                return 0;
            }
            catch (final ScenarioException ex)
            {
                out.flush();
                System.err.println("gpux replay: " + file + ": " + ex.getMessage());
                return 2;
            }
        }
        catch (final IOException ex)
        {
            try
            {
                out.flush();
            }
            catch (final IOException ignored)
            {
                // standard output is gone: nothing more to say there
            }
            System.err.println("gpux replay: " + file + ": cannot read: " + ex.getMessage());
            return 2;
        }
    }
}
