package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.cli.CliRuns.Run;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.CandleInterval;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.HistoryRequest;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.TimeInForce;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpux markets}, {@code gpux history} and {@code gpux book} without a key, in text and JSON,
 * against a real exchange whose clock the test moves: the candles printed are the test's own trades
 * recomputed, and they are the same after the exchange restarts.
 */
@DisabledOnOs(OS.WINDOWS)
class MarketDataCliTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String MARKET = "MD-TEST-80G";
    private static final long T0 = java.time.Instant.parse("2026-11-30T00:00:00Z").toEpochMilli();

    record Trade(long timeMs, long price, int gpus)
    {
    }

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(T0);
    private Exchange exchange;

    private Exchange start() throws Exception
    {
        return Exchange.start(new ExchangeContext().dataDir(dir.resolve("data")).port(0).clock(now::get)
            .heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).log(line -> { }));
    }

    @AfterEach
    void stop()
    {
        if (exchange != null)
        {
            exchange.close();
        }
    }

    @Test
    void marketsHistoryAndBookNeedNoKey() throws Exception
    {
        exchange = start();
        final Exchange.Key admin = exchange.bootstrapKey();
        final String adminKey = Files.writeString(dir.resolve("admin.key"), admin.keyId() + ":" + admin.secret() + "\n").toString();
        ok(cli("admin", "config", "--heartbeat-timeout", "0", "--key-file", adminKey));
        ok(cli("admin", "market", "create", MARKET, "--key-file", adminKey));
        final String[] owner = account(adminKey, "omar", "OWNER", null);
        final String[] renter = account(adminKey, "rosa", "RENTER", "1000000");

        // trades over two days: within a minute, minutes apart, hours apart, a day apart
        final long[] at = {0, 10_000, 50_000, 65_000, 400_000, 3_700_000, 3_720_000, 90_000_000, 90_030_000};
        final long[] prices = {20_000, 25_000, 18_000, 21_000, 30_000, 27_500, 26_000, 24_000, 24_500};
        final List<Trade> trades = new ArrayList<>();
        try (GpuxClient o = login(owner); GpuxClient r = login(renter))
        {
            final Response machine = o.call(Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName("m1")
                .setMarket(MARKET).setGpus(128)), TIMEOUT);
            ok(o.call(Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine.getAssignedId())), TIMEOUT));
            long order = 1;
            for (int i = 0; i < at.length; i++)
            {
                now.set(T0 + at[i]);
                final int gpus = 1 + i % 3;
                ok(o.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(order).setMachineId(machine.getAssignedId())
                    .setGpus(gpus).setPrice(prices[i])), TIMEOUT));
                ok(r.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(order++).setMarket(MARKET)
                    .setGpus(gpus).setPrice(prices[i]).setTif(TimeInForce.IOC)), TIMEOUT));
                trades.add(new Trade(T0 + at[i], prices[i], gpus));
            }
            // the book now: an ask at 9 and a bid at 1
            ok(o.call(Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(order++).setMachineId(machine.getAssignedId())
                .setGpus(2).setPrice(90_000)), TIMEOUT));
            ok(r.call(Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(order).setMarket(MARKET)
                .setGpus(1).setPrice(10_000)), TIMEOUT));
        }

        // markets: text
        Run run = ok(cli("markets"));
        assertTrue(Pattern.compile("(?m)^SYMBOL +GPU +LAST +BID +ASK +VOLUME_24H +TRADES_24H +STATE$").matcher(run.out()).find(), run.toString());
        final long dayAgo = now.get() - 86_400_000L;
        final List<Trade> lastDay = trades.stream().filter(t -> t.timeMs() >= Math.floorDiv(dayAgo, 60_000) * 60_000 + 60_000).toList();
        final long volume = lastDay.stream().mapToLong(Trade::gpus).sum();
        assertTrue(Pattern.compile("(?m)^" + MARKET + " +MD TEST 80GB +2\\.4500 +1\\.0000 +9\\.0000 +" + volume + " +"
            + lastDay.size() + " +open$").matcher(run.out()).find(), run.toString());
        assertTrue(Pattern.compile("(?m)^H200-141G +H200 141GB +- +- +- +0 +0 +open$").matcher(run.out()).find(), run.toString());

        // markets: JSON, absent figures left out
        final Map<String, Map<String, Object>> bySymbol = new LinkedHashMap<>();
        ok(cli("markets", "--json")).json().forEach(m -> bySymbol.put((String)m.get("symbol"), m));
        final Map<String, Object> md = bySymbol.get(MARKET);
        assertEquals("market", md.get("type"));
        assertEquals("MD TEST 80GB", md.get("gpu"));
        assertEquals("2.4500", md.get("last_price"));
        assertEquals("1.0000", md.get("best_bid"));
        assertEquals("9.0000", md.get("best_ask"));
        assertEquals(volume, md.get("volume_24h"));
        assertEquals((long)lastDay.size(), md.get("trades_24h"));
        assertEquals(false, md.get("halted"));
        final Map<String, Object> idle = bySymbol.get("H200-141G");
        assertFalse(idle.containsKey("last_price") || idle.containsKey("best_bid") || idle.containsKey("best_ask"), idle.toString());
        assertEquals(0L, idle.get("volume_24h"));

        // history: every interval, JSON, the symbol in any case
        final Map<String, List<Map<String, Object>>> before = new LinkedHashMap<>();
        for (final Map.Entry<String, Long> interval : Map.of("1m", 60_000L, "5m", 300_000L, "1h", 3_600_000L, "1d", 86_400_000L).entrySet())
        {
            final List<Map<String, Object>> candles = ok(cli("history", "--market", "md-test-80g", "--interval", interval.getKey(), "--json")).json();
            assertEquals(expected(trades, interval.getValue(), interval.getKey()), candles, interval.getKey());
            before.put(interval.getKey(), candles);
        }

        // history: text
        run = ok(cli("history", "--market", MARKET, "--interval", "1h"));
        assertTrue(run.out().startsWith(MARKET + "  1h candles (UTC)\nSTART "), run.toString());
        assertTrue(Pattern.compile("(?m)^2026-11-30 00:00:00\\.000Z +2\\.0000 +3\\.0000 +1\\.8000 +3\\.0000 +9 +5$").matcher(run.out()).find(),
            run.toString());
        assertTrue(Pattern.compile("(?m)^2026-12-01 01:00:00\\.000Z +2\\.4000 +2\\.4500 +2\\.4000 +2\\.4500 +5 +2$").matcher(run.out()).find(),
            run.toString());

        // a range: the five-minute candles of the first hour and a bit, the first one left out
        final List<Map<String, Object>> range = ok(cli("history", "--market", MARKET, "--interval", "5m", "--from",
            "2026-11-30T00:05", "--to", Long.toString(T0 + 3_800_000L), "--json")).json();
        assertEquals(expected(trades, 300_000L, "5m").stream()
            .filter(c -> (Long)c.get("start_ms") >= T0 + 300_000 && (Long)c.get("start_ms") < T0 + 3_800_000).toList(), range);
        assertEquals(2, range.size(), range.toString());
        run = ok(cli("history", "--market", MARKET, "--interval", "1d", "--from", "2027-01-01"));
        assertTrue(run.out().endsWith("no trades in the range\n"), run.toString());

        // refusals and usage errors, one line each
        run = cli("history", "--market", "MD-TSET-80G", "--interval", "1h");
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.out().startsWith("REJECTED history reason=UNKNOWN_MARKET"), run.toString());
        assertTrue(run.out().contains("did you mean " + MARKET), run.toString());
        usage(cli("history", "--market", MARKET, "--interval", "2h"), "an interval is 1m, 5m, 1h or 1d");
        usage(cli("history", "--market", MARKET, "--interval", "1h", "--from", "yesterday"), "a time is 2026-12-01");
        usage(cli("history", "--market", MARKET, "--interval", "1h", "--from", "2026-12-02", "--to", "2026-12-01"),
            "--from must be before --to");

        // the book and its trades, without a key
        run = ok(cli("book", "--market", MARKET));
        assertTrue(Pattern.compile("(?m)^ask +9\\.0000 +2\nbid +1\\.0000 +1$").matcher(run.out()).find(), run.toString());
        // commands that act for an account still need its key
        usage(cli("leases"), "no credentials");

        // the library's market-data login, its blocking and its listener's history alike
        final Map<Long, History> heard = new java.util.concurrent.ConcurrentHashMap<>();
        try (GpuxClient anonymous = new GpuxClient(new ClientContext().port(exchange.port()).marketData()
            .listener(new ClientListener()
            {
                @Override
                public void onHistory(final long requestId, final History history)
                {
                    heard.put(requestId, history);
                }
            })))
        {
            anonymous.connect();
            final HistoryRequest hours = HistoryRequest.newBuilder().setMarket(MARKET).setInterval(CandleInterval.INTERVAL_1H).build();
            final History blocking = anonymous.history(hours, TIMEOUT);
            assertEquals(3, blocking.getCandlesCount(), blocking.toString());
            final long asked = anonymous.history(hours);
            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!heard.containsKey(asked) && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            assertEquals(blocking, heard.get(asked), "the listener's answer to request " + asked);
        }

        // a restart keeps the history
        exchange.close();
        exchange = start();
        for (final Map.Entry<String, List<Map<String, Object>>> interval : before.entrySet())
        {
            assertEquals(interval.getValue(), ok(cli("history", "--market", MARKET, "--interval", interval.getKey(), "--json")).json(),
                "after the restart: " + interval.getKey());
        }
        assertEquals("2.4500", ok(cli("markets", "--json")).json().stream().filter(m -> MARKET.equals(m.get("symbol")))
            .findFirst().orElseThrow().get("last_price"));
    }

    /** The trades' candles, recomputed, as {@code history --json} prints them. */
    private static List<Map<String, Object>> expected(final List<Trade> trades, final long ms, final String label)
    {
        final TreeMap<Long, List<Trade>> byStart = new TreeMap<>();
        trades.forEach(t -> byStart.computeIfAbsent(Math.floorDiv(t.timeMs(), ms) * ms, k -> new ArrayList<>()).add(t));
        final List<Map<String, Object>> out = new ArrayList<>();
        byStart.tailMap(byStart.lastKey() - 1439 * ms, true).forEach((start, in) ->
        {
            final Map<String, Object> c = new LinkedHashMap<>();
            c.put("type", "candle");
            c.put("market", MARKET);
            c.put("interval", label);
            c.put("start_ms", start);
            c.put("start_at", Format.iso(start));
            c.put("open", Money.formatPrice(in.get(0).price()));
            c.put("high", Money.formatPrice(in.stream().mapToLong(Trade::price).max().orElseThrow()));
            c.put("low", Money.formatPrice(in.stream().mapToLong(Trade::price).min().orElseThrow()));
            c.put("close", Money.formatPrice(in.get(in.size() - 1).price()));
            c.put("volume", in.stream().mapToLong(Trade::gpus).sum());
            c.put("trades", (long)in.size());
            out.add(c);
        });
        return out;
    }

    private String[] account(final String adminKey, final String name, final String roles, final String deposit) throws Exception
    {
        ok(cli("admin", "account", "create", name, "--roles", roles, "--key-file", adminKey));
        final Path keyFile = dir.resolve(name + ".key");
        ok(cli("admin", "key", "create", name, "--out", keyFile.toString(), "--key-file", adminKey));
        if (deposit != null)
        {
            ok(cli("admin", "deposit", name, deposit, "--key-file", adminKey));
        }
        return Files.readString(keyFile).trim().split(":");
    }

    private GpuxClient login(final String[] key) throws Exception
    {
        final GpuxClient c = new GpuxClient(new ClientContext().port(exchange.port()).keyId(Long.parseLong(key[0]))
            .secretHex(key[1]));
        c.connect();
        return c;
    }

    private static void ok(final Response r)
    {
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
    }

    private static Run ok(final Run run)
    {
        assertEquals(0, run.status(), run.toString());
        return run;
    }

    private static void usage(final Run run, final String message)
    {
        assertEquals(2, run.status(), run.toString());
        assertTrue(run.err().contains(message), run.toString());
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run.toString());
    }

    private Run cli(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(exchange.port());
        return CliRuns.raw(Map.of(), all);
    }
}
