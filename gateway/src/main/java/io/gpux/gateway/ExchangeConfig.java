package io.gpux.gateway;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A fresh exchange's markets and settings: {@code --config FILE}, or the built-in GPU markets. */
final class ExchangeConfig
{
    private ExchangeConfig()
    {
    }

    /**
     * The MARKET and CONFIG lines of a fresh exchange's config (the built-in markets when none is given),
     * read at every start, before the data directory is touched, so that a bad line fails the start at
     * once (and in one line) whether or not the exchange is fresh.
     */
    static List<Command> read(final Path configFile) throws IOException
    {
        final String name = configFile != null ? configFile.toString() : "built-in markets";
        final List<Command> commands = new ArrayList<>();
        final Set<String> markets = new HashSet<>();
        try (InputStream in = configFile != null ? Files.newInputStream(configFile) :
            ExchangeConfig.class.getResourceAsStream("default-markets.scn"))
        {
            final ScenarioParser parser = new ScenarioParser(new Symbols());
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int lineNo = 0;
            while ((line = reader.readLine()) != null)
            {
                lineNo++;
                final Command c = new Command();
                if (!parser.parse(line, lineNo, c))
                {
                    continue;
                }
                if (c.type == CommandType.MARKET && !markets.add(c.name))
                {
                    throw new IOException(name + ": line " + lineNo + ": market " + c.name + " given twice");
                }
                if (c.type != CommandType.MARKET && c.type != CommandType.CONFIG)
                {
                    throw new IOException(name + ": line " + lineNo + ": only MARKET and CONFIG lines belong in a config");
                }
                commands.add(c);
            }
        }
        catch (final ScenarioException ex)
        {
            throw new IOException(name + ": " + ex.getMessage(), ex);
        }
        return commands;
    }
}
