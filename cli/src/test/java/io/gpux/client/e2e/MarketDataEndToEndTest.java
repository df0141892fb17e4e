package io.gpux.client.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.cli.GpuxCli;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.TimeInForce;
import io.gpux.proto.v1.Trade;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The price history across a crash of the real server process: trades seen by a market-data client,
 * {@code gpux history --json} and {@code gpux markets --json} without a key, the server SIGKILLed and
 * started again on its data directory, and the same candles and last price after it, then a new trade
 * added to them.
 */
class MarketDataEndToEndTest
{
    private static final String MARKET = "H200-141G";
    private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX");

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        E2e.closeAllQuietly(opened, server);
    }

    @Test
    void theHistorySurvivesACrashOfTheServer() throws Exception
    {
        server = new ServerProcess(dir, null, 5_000).options("--max-market-data-sessions", "8").start();
        dump.register("server process output", server::log);
        final GpuxClient admin = E2e.connect(server.port(), server.adminKey(), new Recorder("admin"));
        opened.add(admin);
        E2e.ok(admin, Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)));
        final E2e.Key ownerKey = E2e.account(admin, "owner", Role.OWNER, 0);
        final E2e.Key renterKey = E2e.account(admin, "renter", Role.RENTER, 10_000_000_000L);
        final GpuxClient owner = E2e.connect(server.port(), ownerKey, new Recorder("owner"));
        opened.add(owner);
        final GpuxClient renter = E2e.connect(server.port(), renterKey, new Recorder("renter"));
        opened.add(renter);
        final List<Trade> trades = new CopyOnWriteArrayList<>();
        watch(trades);

        final long machine = E2e.ok(owner, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName("m1")
            .setMarket(MARKET).setGpus(64))).getAssignedId();
        E2e.ok(owner, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
        final long[] prices = {30_000, 32_500, 29_000, 31_000};
        for (int i = 0; i < prices.length; i++)
        {
            trade(owner, renter, machine, i + 1, prices[i], 1 + i);
        }
        E2e.await("the trades reach the market-data client", () -> trades.size() == prices.length);

        final List<String> before = cli("history", "--market", MARKET, "--interval", "1m", "--json");
        assertEquals(expected(trades), before, "the candles are the trades recomputed");
        assertTrue(cli("markets", "--json").stream().anyMatch(line -> line.contains("\"symbol\":\"" + MARKET + "\"")
            && line.contains("\"last_price\":\"3.1000\"")), "the last price");

        server.kill();
        server.start();
        assertEquals(before, cli("history", "--market", MARKET, "--interval", "1m", "--json"), "after the crash");
        assertTrue(cli("markets", "--json").stream().anyMatch(line -> line.contains("\"symbol\":\"" + MARKET + "\"")
            && line.contains("\"last_price\":\"3.1000\"")), "the last price after the crash");

        // the rebuilt history goes on with the trades after the restart (the server listens on a new port)
        watch(trades);
        final GpuxClient owner2 = E2e.connect(server.port(), ownerKey, new Recorder("owner2"));
        opened.add(owner2);
        final GpuxClient renter2 = E2e.connect(server.port(), renterKey, new Recorder("renter2"));
        opened.add(renter2);
        E2e.ok(owner2, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
        trade(owner2, renter2, machine, 10, 28_000, 2);
        E2e.await("the new trade reaches the market-data client", () -> trades.size() == prices.length + 1);
        assertEquals(expected(trades), cli("history", "--market", MARKET, "--interval", "1m", "--json"));
    }

    /** A market-data client (no key) that adds the market's trades to the list. */
    private void watch(final List<Trade> trades) throws Exception
    {
        final GpuxClient watcher = new GpuxClient(new ClientContext().port(server.port()).marketData().reconnect(false)
            .listener(new ClientListener()
            {
                @Override
                public void onTrade(final Trade trade)
                {
                    trades.add(trade);
                }
            }));
        opened.add(watcher);
        watcher.connect();
        watcher.subscribe(MARKET);
    }

    private static void trade(final GpuxClient owner, final GpuxClient renter, final long machine, final long order,
        final long price, final int gpus) throws Exception
    {
        E2e.ok(owner, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(order).setMachineId(machine)
            .setGpus(gpus).setPrice(price)));
        E2e.ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(order).setMarket(MARKET)
            .setGpus(gpus).setPrice(price).setTif(TimeInForce.IOC)));
    }

    /** {@code history --json}'s lines for the trades' one-minute candles, recomputed. */
    private static List<String> expected(final List<Trade> trades)
    {
        final TreeMap<Long, List<Trade>> byMinute = new TreeMap<>();
        trades.forEach(t -> byMinute.computeIfAbsent(t.getTimeMs() / 60_000 * 60_000, k -> new ArrayList<>()).add(t));
        final List<String> lines = new ArrayList<>();
        byMinute.forEach((start, in) -> lines.add("{\"type\":\"candle\",\"market\":\"" + MARKET + "\",\"interval\":\"1m\",\"start_ms\":"
            + start + ",\"start_at\":\"" + Instant.ofEpochMilli(start).atOffset(ZoneOffset.UTC).format(ISO_MILLIS) + "\",\"open\":\"" + Money.formatPrice(in.get(0).getPrice()) + "\",\"high\":\""
            + Money.formatPrice(in.stream().mapToLong(Trade::getPrice).max().orElseThrow()) + "\",\"low\":\""
            + Money.formatPrice(in.stream().mapToLong(Trade::getPrice).min().orElseThrow()) + "\",\"close\":\""
            + Money.formatPrice(in.get(in.size() - 1).getPrice()) + "\",\"volume\":" + in.stream().mapToLong(Trade::getGpus).sum()
            + ",\"trades\":" + in.size() + "}"));
        return lines;
    }

    /** Runs a gpux command without a key against the server; its output lines (it must exit 0). */
    private List<String> cli(final String... args)
    {
        final String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--port";
        all[args.length + 1] = Integer.toString(server.port());
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = GpuxCli.commandLine(new GpuxCli(Map.of())).setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true)).execute(all);
        assertEquals(0, status, () -> String.join(" ", args) + ": " + out + err);
        return List.of(out.toString().split("\n"));
    }
}
