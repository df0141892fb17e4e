package io.gpux.engine.data;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kraken's order-book exercise ({@code shared/data/matching-vectors/kraken-exercise}, scenarios 1-14, and its
 * per-scenario split {@code kraken-assessment-ambroisie}), replayed through gpux and compared line by line with
 * the expected {@code A}/{@code R}/{@code B}/{@code T} output.
 *
 * <p>Mapping: each exercise symbol is a gpux market ({@code preemption=off}, {@code feeBps=0}); each user
 * {@code N} is an account {@code uN} with role {@code MARKET_MAKER} (users buy and sell), a large deposit and
 * one online machine per market it sells in; {@code N ... B} is a {@code BID}, {@code N ... S} an {@code ASK}
 * from the user's machine, with the user's order id as client order id and the integer price as a gpux price
 * ({@code 10} is {@code 10.0000}); {@code C} is {@code CANCEL}; {@code F} starts a fresh engine. Output is read
 * back from gpux's events:
 * <ul>
 *   <li>{@code A, user, id}: {@code ACCEPTED} of an order, {@code CANCELLED reason=USER} of a cancel;</li>
 *   <li>{@code R, user, id}: {@code REJECTED reason=POST_ONLY_WOULD_MATCH} (reject mode sends every order with
 *       {@code postOnly=true}: the exercise rejects an order that would cross the book);</li>
 *   <li>{@code T, buyUser, buyId, sellUser, sellId, price, qty}: a {@code FILL} pair (incoming, then resting
 *       order) with its {@code TRADE};</li>
 *   <li>{@code B, side, price, qty}: a change of gpux's best level on a side ({@code BOOK depth=1} after each
 *       input line), bid side first; {@code -, -} when the side empties.</li>
 * </ul>
 *
 * <p>What was skipped, and why:
 * <ul>
 *   <li>{@code matching-asking-price.trades.out.csv}: known wrong (its README): it prices the trade at the
 *       incoming sell's limit 8; gpux, like the rulebook (section 5: the older order's price), trades at the
 *       resting bid's 10. Instead of comparing, a test checks that gpux differs from that file in exactly
 *       this price.</li>
 *   <li>{@code data/invalid/*}: inputs the author's engine refused, with no expected output.</li>
 *   <li>Market orders (price 0) and a user crossing its own order do not occur in these inputs; gpux would
 *       treat the latter differently (self-trade prevention passes over the own order, section 4), so the
 *       translator fails loudly if either ever appears.</li>
 *   <li>Trade mode is run only where the vectors give trade-mode output (kraken-exercise 13 and 14, the
 *       {@code *.trades.out.csv} files); the exercise's trades scenario 13 is input scenario 5 and 14 is input
 *       scenario 3 (matched by their {@code descr}).</li>
 * </ul>
 */
class KrakenVectorsTest
{
    private static final String EXERCISE = "matching-vectors/kraken-exercise";
    private static final String AMBROISIE = "matching-vectors/kraken-assessment-ambroisie/data";
    private static final String KNOWN_WRONG = "matching-asking-price";

    @TestFactory
    Stream<DynamicTest> krakenExercise() throws IOException
    {
        final Path dir = SharedData.resolve(EXERCISE);
        final List<Section> inputs = sections(Files.readAllLines(dir.resolve("input_file.csv"), StandardCharsets.UTF_8), true);
        final List<Section> outputs = sections(Files.readAllLines(dir.resolve("output_file.csv"), StandardCharsets.UTF_8), false);
        assertEquals(12, inputs.size(), "input scenarios");
        assertEquals(14, outputs.size(), "output scenarios");
        final List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < outputs.size(); i++)
        {
            final Section out = outputs.get(i);
            final boolean trading = i >= inputs.size();
            final Section in = trading ? byDescription(inputs, out.description) : inputs.get(i);
            final String name = out.name + " (" + (trading ? "trade mode, input " + in.name : "reject mode") + "): " +
                out.description;
            tests.add(DynamicTest.dynamicTest(name, dir.resolve("output_file.csv").toUri(),
                () -> assertOutput(out.lines, in.lines, trading)));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> krakenAssessmentAmbroisie() throws IOException
    {
        final Path dir = SharedData.resolve(AMBROISIE);
        final List<DynamicTest> tests = new ArrayList<>();
        final List<Path> inputs;
        try (Stream<Path> list = Files.list(dir.resolve("inputs")))
        {
            inputs = list.filter(p -> p.getFileName().toString().endsWith(".in.csv")).sorted().toList();
        }
        assertFalse(inputs.isEmpty(), "no inputs under " + dir);
        for (final Path input : inputs)
        {
            final String base = input.getFileName().toString().replaceFirst("\\.in\\.csv$", "");
            final List<String> in = Files.readAllLines(input, StandardCharsets.UTF_8);
            final Path rejects = dir.resolve("outputs/" + base + ".out.csv");
            final Path trades = dir.resolve("outputs/" + base + ".trades.out.csv");
            assertTrue(Files.exists(rejects), "missing " + rejects);
            tests.add(DynamicTest.dynamicTest(base + " (reject mode)", rejects.toUri(),
                () -> assertOutput(Files.readAllLines(rejects), in, false)));
            if (Files.exists(trades) && base.equals(KNOWN_WRONG))
            {
                tests.add(DynamicTest.dynamicTest(base + " (trade mode; expected file known wrong, gpux trades at the resting bid)",
                    trades.toUri(), () -> assertKnownWrongDiffersOnlyInPrice(Files.readAllLines(trades), in)));
            }
            else if (Files.exists(trades))
            {
                tests.add(DynamicTest.dynamicTest(base + " (trade mode)", trades.toUri(),
                    () -> assertOutput(Files.readAllLines(trades), in, true)));
            }
        }
        return tests.stream();
    }

    private static void assertOutput(final List<String> expected, final List<String> input, final boolean trading)
    {
        final List<String> actual = new Translator(trading).run(input);
        assertEquals(String.join("\n", normalize(expected)), String.join("\n", actual),
            "input:\n" + String.join("\n", input));
    }

    /**
     * The file expects {@code T,1,101,2,102,8,100}: the incoming sell's limit. gpux must print everything
     * else identically and price the trade at the resting bid, 10.
     */
    private static void assertKnownWrongDiffersOnlyInPrice(final List<String> expected, final List<String> input)
    {
        final List<String> wanted = new ArrayList<>(normalize(expected));
        final int t = wanted.indexOf("T,1,101,2,102,8,100");
        assertTrue(t >= 0, "the known-wrong file changed: " + wanted);
        wanted.set(t, "T,1,101,2,102,10,100");
        assertEquals(String.join("\n", wanted), String.join("\n", new Translator(true).run(input)));
    }

    private static List<String> normalize(final List<String> lines)
    {
        final List<String> result = new ArrayList<>();
        for (final String line : lines)
        {
            final String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("#"))
            {
                result.add(s.replaceAll("\\s*,\\s*", ","));
            }
        }
        return result;
    }

    /** A scenario of the exercise's files: {@code #name:}, {@code #descr:} and its data lines. */
    private record Section(String name, String description, List<String> lines)
    {
    }

    /**
     * Splits an exercise file into scenarios: a {@code #name:} comment starts one; in the input file an
     * {@code F} line ends one (and is kept, so the flush is replayed).
     */
    private static List<Section> sections(final List<String> lines, final boolean input)
    {
        final List<Section> result = new ArrayList<>();
        String name = null;
        String descr = "";
        List<String> current = null;
        for (final String raw : lines)
        {
            final String line = raw.strip();
            if (line.startsWith("#name:"))
            {
                if (current != null && !input)
                {
                    result.add(new Section(name, descr, current));
                }
                name = line.substring("#name:".length()).strip().replaceAll("\\s+", " ");
                descr = "";
                current = new ArrayList<>();
            }
            else if (line.startsWith("#descr:"))
            {
                descr = line.substring("#descr:".length()).strip();
            }
            else if (!line.isEmpty() && !line.startsWith("#") && current != null)
            {
                current.add(line);
                if (input && line.equals("F"))
                {
                    result.add(new Section(name, descr, current));
                    current = null;
                }
            }
        }
        if (current != null && !input)
        {
            result.add(new Section(name, descr, current));
        }
        return result;
    }

    private static Section byDescription(final List<Section> inputs, final String description)
    {
        return inputs.stream().filter(s -> s.description.equals(description)).findFirst()
            .orElseThrow(() -> new AssertionError("no input scenario with descr '" + description + "'"));
    }

    /** Replays exercise lines through gpux and prints the exercise's output lines from gpux's events. */
    static final class Translator
    {
        private final boolean trading;
        private GpuxSession gpux;
        private final Set<String> markets = new HashSet<>();
        private final Set<String> users = new HashSet<>();
        private final Map<String, String> marketOfOrder = new HashMap<>();
        private final Map<String, String[]> topOfBook = new HashMap<>();
        private final List<String> out = new ArrayList<>();

        Translator(final boolean trading)
        {
            this.trading = trading;
            flush();
        }

        List<String> run(final List<String> input)
        {
            for (final String raw : input)
            {
                final String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#"))
                {
                    continue;
                }
                final String[] f = line.split("\\s*,\\s*");
                gpux.time(gpux.time() + 1);
                switch (f[0])
                {
                    case "N" -> order(f[1], f[2], f[3], f[4], f[5], f[6]);
                    case "C" -> cancel(f[1], f[2]);
                    case "F" -> flush();
                    default -> throw new AssertionError("unknown exercise line: " + line);
                }
            }
            return out;
        }

        private void flush()
        {
            gpux = new GpuxSession();
            markets.clear();
            users.clear();
            marketOfOrder.clear();
            topOfBook.clear();
        }

        private void order(final String user, final String symbol, final String price, final String qty,
            final String side, final String id)
        {
            if (Long.parseLong(price) == 0)
            {
                throw new AssertionError("market orders (price 0) are not mapped onto gpux");
            }
            final String account = account(user);
            if (markets.add(symbol))
            {
                gpux.market(symbol);
            }
            final String postOnly = trading ? "" : " postOnly=true";
            final String command = switch (side)
            {
                case "B" -> "BID id=" + id + " account=" + account + " market=" + symbol + " gpus=" + qty +
                    " price=" + price + postOnly;
                case "S" -> "ASK id=" + id + " account=" + account + " machine=" + gpux.machine(account, symbol) +
                    " gpus=" + qty + " price=" + price + postOnly;
                default -> throw new AssertionError("side " + side);
            };
            marketOfOrder.put(account + "|" + id, symbol);
            final List<String> events = gpux.run(command);
            for (int i = 0; i < events.size(); i++)
            {
                final String e = events.get(i);
                switch (GpuxSession.verb(e))
                {
                    case "ACCEPTED" -> out.add("A," + user + "," + id);
                    case "REJECTED" -> out.add(GpuxSession.value(e, "reason").equals("POST_ONLY_WOULD_MATCH") ?
                        "R," + user + "," + id : "R(" + GpuxSession.value(e, "reason") + ")," + user + "," + id);
                    case "FILL" ->
                    {
                        final String resting = events.get(++i);
                        final String restingUser = user(GpuxSession.value(resting, "account"));
                        final String restingId = GpuxSession.value(resting, "order");
                        if (restingUser.equals(user))
                        {
                            throw new AssertionError("user " + user + " traded with itself: " + e);
                        }
                        final String p = exercisePrice(GpuxSession.value(e, "price"));
                        final String q = GpuxSession.value(e, "gpus");
                        out.add(side.equals("B") ?
                            "T," + user + "," + id + "," + restingUser + "," + restingId + "," + p + "," + q :
                            "T," + restingUser + "," + restingId + "," + user + "," + id + "," + p + "," + q);
                    }
                    default ->
                    {
                        // TRADE, LEASE_STARTED, CANCELLED of an IOC remainder: nothing in the exercise's output
                    }
                }
            }
            topOfBook(symbol);
        }

        private void cancel(final String user, final String id)
        {
            final String account = account(user);
            final String symbol = marketOfOrder.get(account + "|" + id);
            for (final String e : gpux.run("CANCEL id=" + id + " account=" + account))
            {
                switch (GpuxSession.verb(e))
                {
                    case "CANCELLED" -> out.add("A," + user + "," + id);
                    case "REJECTED" -> out.add("R(" + GpuxSession.value(e, "reason") + ")," + user + "," + id);
                    default -> out.add("?" + e);
                }
            }
            if (symbol != null)
            {
                topOfBook(symbol);
            }
        }

        private void topOfBook(final String symbol)
        {
            final GpuxSession.Book book = gpux.book(symbol, 1);
            final String[] now = {
                top(book.bidPrices(), book.bidGpus()), top(book.askPrices(), book.askGpus())};
            final String[] before = topOfBook.getOrDefault(symbol, new String[]{"-,-", "-,-"});
            if (!now[0].equals(before[0]))
            {
                out.add("B,B," + now[0]);
            }
            if (!now[1].equals(before[1]))
            {
                out.add("B,S," + now[1]);
            }
            topOfBook.put(symbol, now);
        }

        private static String top(final long[] prices, final long[] gpus)
        {
            return prices.length == 0 ? "-,-" : exercisePrice(GpuxSession.price(prices[0])) + "," + gpus[0];
        }

        private String account(final String user)
        {
            final String account = "u" + user;
            if (users.add(user))
            {
                gpux.account(account, "MARKET_MAKER");
            }
            return account;
        }

        private static String user(final String account)
        {
            return account.substring(1);
        }

        private static String exercisePrice(final String gpuxPrice)
        {
            return new BigDecimal(gpuxPrice).stripTrailingZeros().toPlainString();
        }
    }
}
