package io.gpux.engine.data;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Gherkin matching scenarios of two other engines, interpreted against gpux: one dynamic test per scenario
 * (per example row of an outline), background steps first.
 *
 * <p><b>exchange-core</b> ({@code exchange-core-gherkin/basic.feature}): clients are {@code MARKET_MAKER}
 * accounts; {@code places an ASK/BID order ID at PRICE@SIZE (type: GTC|IOC, symbol: S)} is an {@code ASK}
 * (from the client's machine in market {@code S}) or {@code BID}; {@code moves a price to P of the order ID}
 * is {@code REPLACE price=P}; {@code cancels the remaining size N of the order ID} is {@code CANCEL}, checked to
 * withdraw N. Checked: the L2 book table (against gpux's {@code BOOK}), {@code No trade events}, {@code The order
 * ID is partially|fully matched. LastPx, LastQty} (the last {@code FILL} of that order among the step's events,
 * and whether GPUs of it stay open), and the client's open orders (id, price, size, filled, side) from a ledger
 * of gpux's events. Skipped: balances ({@code has a balance}, {@code A balance of a client}) and
 * {@code reservePrice}: exchange-core's per-currency risk accounts have no gpux counterpart (a gpux renter
 * holds currency for the lease's first period, rulebook section 9), so every client just gets a large deposit;
 * {@code risk.feature} is not run for the same reason.
 *
 * <p><b>MultiBitExchange</b> ({@code multibit-gherkin/*.feature}): brokers are {@code MARKET_MAKER} accounts of
 * one market; {@code the following orders are submitted} places each row (price {@code M}, a market order, is
 * an IOC at an extreme price: gpux trades at the resting order's price and cancels the rest, as the feature
 * says). Checked: the trades (buying broker, selling broker, qty, price) of the step's events, the per-order
 * book rows (broker, qty, price in price-time order, from the ledger) and the aggregated levels (against gpux's
 * {@code BOOK}), and the quote (best bid, best ask, spread) from {@code BOOK}. Skipped (reported as aborted
 * tests): scenarios whose prices have more than 4 decimals, which gpux cannot express (tick 0.0001).
 */
class GherkinVectorsTest
{
    @TestFactory
    Stream<DynamicTest> exchangeCoreBasic() throws IOException
    {
        final Path file = SharedData.resolve("matching-vectors/exchange-core-gherkin/basic.feature");
        return scenarios(file).stream().map(s ->
            DynamicTest.dynamicTest(s.name(), file.toUri(), () -> new ExchangeCoreSteps().run(s)));
    }

    @TestFactory
    Stream<DynamicTest> multibit() throws IOException
    {
        final Path dir = SharedData.resolve("matching-vectors/multibit-gherkin");
        final List<Path> files;
        try (Stream<Path> list = Files.list(dir))
        {
            files = list.filter(p -> p.toString().endsWith(".feature")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no features under " + dir);
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Path file : files)
        {
            final String feature = file.getFileName().toString().replaceFirst("\\.feature$", "");
            for (final Gherkin.Scenario s : scenarios(file))
            {
                tests.add(DynamicTest.dynamicTest(feature + ": " + s.name(), file.toUri(), () -> new MultibitSteps().run(s)));
            }
        }
        return tests.stream();
    }

    private static List<Gherkin.Scenario> scenarios(final Path file) throws IOException
    {
        final List<Gherkin.Scenario> scenarios = Gherkin.parse(Files.readAllLines(file, StandardCharsets.UTF_8));
        assertFalse(scenarios.isEmpty(), "no scenarios in " + file);
        return scenarios;
    }

    /** Runs steps; a run of action steps collects its events for the checks that follow it. */
    private abstract static class Steps
    {
        final TrackedGpux gpux = new TrackedGpux();
        private boolean inActions;

        void run(final Gherkin.Scenario scenario)
        {
            for (final Gherkin.Step step : scenario.steps())
            {
                try
                {
                    step(step);
                }
                catch (final AssertionError ex)
                {
                    throw new AssertionError("line " + step.line() + ": " + step.keyword() + " " + step.text() + ": " +
                        ex.getMessage() + "\n--- gpux events of the last action steps ---\n" +
                        String.join("\n", gpux.recent), ex);
                }
            }
        }

        abstract void step(Gherkin.Step step);

        void action()
        {
            if (!inActions)
            {
                gpux.startActions();
                inActions = true;
            }
        }

        void check()
        {
            inActions = false;
        }

        static Matcher match(final Pattern pattern, final String text)
        {
            final Matcher m = pattern.matcher(text);
            return m.matches() ? m : null;
        }

        /** Compares gpux's whole book with levels given best first. */
        void assertBook(final String market, final TreeMap<Long, Long> bids, final TreeMap<Long, Long> asks)
        {
            final GpuxSession.Book book = gpux.gpux.book(market, 1000);
            assertEquals(levels(bids.descendingMap()) + " | " + levels(asks), book.bids() + " | " + book.asks(),
                "book of " + market + " (bids | asks)");
        }

        private static String levels(final java.util.Map<Long, Long> side)
        {
            if (side.isEmpty())
            {
                return "-";
            }
            final StringBuilder sb = new StringBuilder();
            side.forEach((p, q) -> sb.append(sb.length() == 0 ? "" : ",").append(GpuxSession.price(p)).append(':').append(q));
            return sb.toString();
        }
    }

    /** exchange-core's step vocabulary (basic.feature). */
    private static final class ExchangeCoreSteps extends Steps
    {
        private static final Pattern BALANCE = Pattern.compile("New client (\\w+) has a balance:");
        private static final Pattern PLACE = Pattern.compile(
            "A client (\\w+) places an (ASK|BID) order (\\d+) at (\\d+)@(\\d+) \\(type: (\\w+), symbol: (\\w+)(?:, reservePrice: \\d+)?\\)");
        private static final Pattern BOOK = Pattern.compile("An (\\w+) order book is:");
        private static final Pattern NO_TRADES = Pattern.compile("No trade events");
        private static final Pattern ORDERS = Pattern.compile("A client (\\w+) orders:");
        private static final Pattern MATCHED = Pattern.compile(
            "The order (\\d+) is (partially|fully) matched\\. LastPx: (\\d+), LastQty: (\\d+)(?:, bidderHoldPrice: \\d+)?");
        private static final Pattern MOVE = Pattern.compile("A client (\\w+) moves a price to (\\d+) of the order (\\d+)");
        private static final Pattern CANCEL = Pattern.compile("A client (\\w+) cancels the remaining size (\\d+) of the order (\\d+)");
        private static final Pattern NO_ORDERS = Pattern.compile("A client (\\w+) does not have active orders");
        private static final Pattern BALANCE_CHECK = Pattern.compile("A balance of a client (\\w+):");

        @Override
        void step(final Gherkin.Step step)
        {
            final String text = step.text();
            Matcher m;
            if ((m = match(BALANCE, text)) != null)
            {
                gpux.account(m.group(1));
            }
            else if ((m = match(PLACE, text)) != null)
            {
                action();
                final String tif = m.group(6);
                assertTrue(tif.equals("GTC") || tif.equals("IOC") || tif.equals("FOK"), "order type " + tif);
                gpux.place(m.group(1), m.group(3), m.group(2).equals("BID"), m.group(7), Long.parseLong(m.group(5)),
                    GpuxSession.ticks(m.group(4)), tif);
            }
            else if ((m = match(MOVE, text)) != null)
            {
                action();
                gpux.replacePrice(m.group(1), m.group(3), GpuxSession.ticks(m.group(2)));
            }
            else if ((m = match(CANCEL, text)) != null)
            {
                action();
                final List<String> events = gpux.cancel(m.group(1), m.group(3));
                assertEquals(1, events.size(), "CANCEL printed " + events);
                assertEquals("CANCELLED", GpuxSession.verb(events.get(0)), events.get(0));
                assertEquals(m.group(2), GpuxSession.value(events.get(0), "remaining"), events.get(0));
            }
            else if ((m = match(BOOK, text)) != null)
            {
                check();
                orderBook(m.group(1), step.table());
            }
            else if (match(NO_TRADES, text) != null)
            {
                check();
                assertTrue(gpux.matches(gpux.recent).isEmpty(), "trades: " + gpux.matches(gpux.recent));
            }
            else if ((m = match(MATCHED, text)) != null)
            {
                check();
                matched(m.group(1), m.group(2).equals("fully"), GpuxSession.ticks(m.group(3)), Long.parseLong(m.group(4)));
            }
            else if ((m = match(ORDERS, text)) != null)
            {
                check();
                orders(m.group(1), step.table());
            }
            else if ((m = match(NO_ORDERS, text)) != null)
            {
                check();
                assertTrue(gpux.active(m.group(1)).isEmpty(), m.group(1) + " has open orders");
            }
            else if (match(BALANCE_CHECK, text) == null)
            {
                fail("step not mapped onto gpux: " + text);
            }
            // A balance of a client ...: currency balances per asset have no gpux counterpart (see class Javadoc)
        }

        /** Rows {@code | bid | price | ask |}, best ask at the top; a header row is optional. */
        private void orderBook(final String market, final List<List<String>> table)
        {
            final TreeMap<Long, Long> bids = new TreeMap<>();
            final TreeMap<Long, Long> asks = new TreeMap<>();
            for (final List<String> row : table)
            {
                if (row.get(1).equals("price"))
                {
                    continue;
                }
                final long price = GpuxSession.ticks(row.get(1));
                if (!row.get(0).isEmpty())
                {
                    bids.merge(price, Long.parseLong(row.get(0)), Long::sum);
                }
                if (!row.get(2).isEmpty())
                {
                    asks.merge(price, Long.parseLong(row.get(2)), Long::sum);
                }
            }
            assertBook(market, bids, asks);
        }

        /** The order's last fill among the step's events; {@code fully}: nothing of it stays open. */
        private void matched(final String id, final boolean fully, final long price, final long qty)
        {
            final TrackedGpux.Match last = gpux.matches(gpux.recent).stream()
                .filter(x -> x.resting().id.equals(id) || x.incoming().id.equals(id)).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("order " + id + " did not trade"));
            assertEquals(GpuxSession.price(price), GpuxSession.price(last.price()), "LastPx");
            assertEquals(qty, last.gpus(), "LastQty");
            final TrackedGpux.Entry order = gpux.entry(id);
            assertEquals(fully, order.filled == order.size, "fully matched: filled " + order.filled + " of " + order.size);
        }

        /** Table {@code id | price | size | filled | reservePrice | side}; reservePrice is not mapped. */
        private void orders(final String client, final List<List<String>> table)
        {
            final List<String> expected = new ArrayList<>();
            for (final List<String> row : table.subList(1, table.size()))
            {
                expected.add(row.get(0) + " " + GpuxSession.price(GpuxSession.ticks(row.get(1))) + " " + row.get(2) + " " +
                    row.get(3) + " " + row.get(5));
            }
            final List<String> actual = gpux.active(client).stream()
                .map(o -> o.id + " " + GpuxSession.price(o.price) + " " + o.size + " " + o.filled + " " + (o.bid ? "BID" : "ASK"))
                .toList();
            assertEquals(expected.stream().sorted().toList(), actual.stream().sorted().toList(), "open orders of " + client);
        }
    }

    /** MultiBitExchange's step vocabulary. */
    private static final class MultibitSteps extends Steps
    {
        private static final String MARKET = "MULTIBIT";
        /** A market order: an IOC at a price no resting order of the vectors reaches. */
        private static final long MARKET_BUY_PRICE = GpuxSession.ticks("100000");
        private static final long MARKET_SELL_PRICE = 1;
        private int nextId;

        @Override
        void step(final Gherkin.Step step)
        {
            final String text = step.text();
            switch (text)
            {
                case "the following orders are submitted:" ->
                {
                    action();
                    submit(step.table());
                }
                case "no trades are generated" ->
                {
                    check();
                    assertTrue(gpux.matches(gpux.recent).isEmpty(), "trades: " + gpux.matches(gpux.recent));
                }
                case "the following trades are generated:" ->
                {
                    check();
                    trades(step.table());
                }
                case "market order book looks like:" ->
                {
                    check();
                    book(step.table());
                }
                case "the quote looks like:" ->
                {
                    check();
                    quote(step.table());
                }
                default -> fail("step not mapped onto gpux: " + text);
            }
        }

        /** {@code | Broker | Side | Qty | Price |}; price {@code M} is a market order. */
        private void submit(final List<List<String>> table)
        {
            for (final List<String> row : table.subList(1, table.size()))
            {
                final boolean bid = row.get(1).equalsIgnoreCase("Buy");
                assertTrue(bid || row.get(1).equalsIgnoreCase("Sell"), "side " + row.get(1));
                final boolean market = row.get(3).equals("M");
                final long price = market ? (bid ? MARKET_BUY_PRICE : MARKET_SELL_PRICE) : ticks(row.get(3));
                gpux.place(row.get(0), "o" + ++nextId, bid, MARKET, Long.parseLong(row.get(2)), price, market ? "IOC" : "GTC");
            }
        }

        /** {@code | Buying broker | Selling broker | Qty | Price |}, in the order they happen. */
        private void trades(final List<List<String>> table)
        {
            final List<String> expected = new ArrayList<>();
            for (final List<String> row : table.subList(1, table.size()))
            {
                expected.add(row.get(0) + " buys " + row.get(2) + " from " + row.get(1) + " at " + GpuxSession.price(ticks(row.get(3))));
            }
            final List<String> actual = gpux.matches(gpux.recent).stream()
                .map(x -> x.buyer().account + " buys " + x.gpus() + " from " + x.seller().account + " at " + GpuxSession.price(x.price()))
                .toList();
            assertEquals(expected, actual, "trades");
        }

        /** {@code | Broker | Qty | Price | Price | Qty | Broker |}: one row per resting order, best first. */
        private void book(final List<List<String>> table)
        {
            final List<String> bidRows = new ArrayList<>();
            final List<String> askRows = new ArrayList<>();
            final TreeMap<Long, Long> bids = new TreeMap<>();
            final TreeMap<Long, Long> asks = new TreeMap<>();
            for (final List<String> row : table.subList(1, table.size()))
            {
                if (!row.get(2).isEmpty())
                {
                    final long price = ticks(row.get(2));
                    bidRows.add(row.get(0) + " " + row.get(1) + "@" + GpuxSession.price(price));
                    bids.merge(price, Long.parseLong(row.get(1)), Long::sum);
                }
                if (!row.get(3).isEmpty())
                {
                    final long price = ticks(row.get(3));
                    askRows.add(row.get(5) + " " + row.get(4) + "@" + GpuxSession.price(price));
                    asks.merge(price, Long.parseLong(row.get(4)), Long::sum);
                }
            }
            assertBook(MARKET, bids, asks);
            assertEquals(bidRows, rows(true), "bid orders in priority order");
            assertEquals(askRows, rows(false), "ask orders in priority order");
        }

        private List<String> rows(final boolean bids)
        {
            return gpux.side(MARKET, bids).stream().map(o -> o.account + " " + o.remaining() + "@" + GpuxSession.price(o.price)).toList();
        }

        /** {@code | Bid | Ask | Spread |} from gpux's best levels. */
        private void quote(final List<List<String>> table)
        {
            final List<String> row = table.get(1);
            final GpuxSession.Book book = gpux.gpux.book(MARKET, 1);
            assertTrue(book.bidPrices().length == 1 && book.askPrices().length == 1, "one-sided book: " + book.bids() + " | " + book.asks());
            final long bid = book.bidPrices()[0];
            final long ask = book.askPrices()[0];
            assertEquals(GpuxSession.price(ticks(row.get(0))), GpuxSession.price(bid), "Bid");
            assertEquals(GpuxSession.price(ticks(row.get(1))), GpuxSession.price(ask), "Ask");
            assertEquals(GpuxSession.price(ticks(row.get(2))), GpuxSession.price(ask - bid), "Spread");
        }

        /** @return the price in gpux ticks; a price finer than 0.0001 aborts the scenario (not expressible). */
        private static long ticks(final String price)
        {
            final BigDecimal value = new BigDecimal(price);
            Assumptions.assumeTrue(value.scale() <= 4,
                () -> "price " + price + " has more than 4 decimals: gpux's tick is 0.0001, so this scenario does not apply");
            return GpuxSession.ticks(value.toPlainString());
        }
    }
}
