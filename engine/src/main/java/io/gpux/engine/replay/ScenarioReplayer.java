package io.gpux.engine.replay;

import io.gpux.engine.MatchingEngine;
import io.gpux.engine.command.Command;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;

/** Runs scenario text through a fresh matching engine, printing its events. */
public final class ScenarioReplayer
{
    private final Symbols symbols = new Symbols();
    private final ScenarioParser parser = new ScenarioParser(symbols);
    private final ScenarioPrinter printer;
    private final MatchingEngine engine;
    private final Command command = new Command();
    private int lineNo;

    public ScenarioReplayer(final Appendable out)
    {
        printer = new ScenarioPrinter(symbols, out);
        engine = new MatchingEngine(printer);
    }

    public MatchingEngine engine()
    {
        return engine;
    }

    public Symbols symbols()
    {
        return symbols;
    }

    /** Parses and applies the next line; blank and comment lines do nothing. */
    public void line(final String line) throws ScenarioException
    {
        lineNo++;
        if (parser.parse(line, lineNo, command))
        {
            engine.apply(command);
        }
    }

    public void replay(final Reader in) throws IOException, ScenarioException
    {
        final BufferedReader reader = in instanceof BufferedReader b ? b : new BufferedReader(in, 1 << 16);
        String line;
        while ((line = reader.readLine()) != null)
        {
            line(line);
        }
    }

    /** Replays scenario text and returns what it printed; bad input throws. */
    public static String replay(final String scenario) throws ScenarioException
    {
        final StringBuilder out = new StringBuilder();
        try
        {
            new ScenarioReplayer(out).replay(new StringReader(scenario));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return out.toString();
    }
}
