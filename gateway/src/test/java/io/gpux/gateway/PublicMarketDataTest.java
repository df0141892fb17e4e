package io.gpux.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.proto.v1.Candle;
import io.gpux.proto.v1.CandleInterval;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.History;
import io.gpux.proto.v1.HistoryRequest;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.MarketsRequest;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.PortfolioRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Subscribe;
import io.gpux.proto.v1.TimeInForce;
import io.gpux.proto.v1.Trade;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Public market data over real sockets: the keyless market-data login reads the markets, books,
 * trades and candles and can do nothing else; the candles are the trades recomputed here; a restart
 * of the exchange keeps them.
 */
class PublicMarketDataTest
{
    private static final String MARKET = "H200-141G";
    private static final long T0 = 1_764_000_000_000L;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(T0);
    private Exchange exchange;

    /** The thread layout under test: the core and the egress on the event loop (the default) or their own threads. */
    boolean sharedLoop()
    {
        return true;
    }

    private Exchange start(final int maxMarketDataSessions) throws Exception
    {
        return Exchange.start(new ExchangeContext().dataDir(dir).port(0).bind("127.0.0.1").clock(now::get).sharedLoop(sharedLoop())
            .heartbeatIntervalMs(5_000).loginTimeoutMs(5_000).maxMarketDataSessions(maxMarketDataSessions).log(line -> { }));
    }

    @AfterEach
    void stop()
    {
        if (exchange != null)
        {
            exchange.close();
        }
    }

    private RawConnection marketDataLogin() throws IOException
    {
        final RawConnection c = new RawConnection(exchange.port());
        c.send(Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(0).setTimestampMs(System.currentTimeMillis())).build());
        final Envelope accepted = c.readNonHeartbeat();
        assertNotNull(accepted);
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, accepted.getBodyCase(), accepted::toString);
        assertEquals(0, accepted.getLoginAccepted().getAccountId());
        assertEquals(0, accepted.getLoginAccepted().getRolesCount(), "no roles");
        c.startHeartbeats(1_000);
        return c;
    }

    private RawConnection login(final long keyId, final String secret) throws IOException
    {
        final RawConnection c = new RawConnection(exchange.port());
        assertEquals(Envelope.BodyCase.LOGIN_ACCEPTED, c.login(keyId, secret).getBodyCase());
        c.startHeartbeats(1_000);
        return c;
    }

    @Test
    void candlesAreTheTradesRecomputedAndSurviveARestart() throws Exception
    {
        exchange = start(10);
        final Exchange.Key admin = exchange.bootstrapKey();
        final List<Trade> trades = new ArrayList<>();
        final List<History> before = new ArrayList<>();
        try (RawConnection adminConn = login(admin.keyId(), admin.secret());
             RawConnection watcher = marketDataLogin())
        {
            TestExchange.ok(adminConn, Envelope.newBuilder().setConfigure(Configure.newBuilder().setHeartbeatTimeoutMs(0)));
            final TestExchange.Key owner = TestExchange.account(adminConn, "olga", 0, Role.OWNER);
            final TestExchange.Key renter = TestExchange.account(adminConn, "rita", 1_000_000_000_000L, Role.RENTER);
            assertEquals(Envelope.BodyCase.BOOK_SNAPSHOT, watcher.responseTo(watcher.request(
                Envelope.newBuilder().setSubscribe(Subscribe.newBuilder().setMarket(MARKET)))).getBodyCase());
            try (RawConnection o = login(owner.id(), owner.secret()); RawConnection r = login(renter.id(), renter.secret()))
            {
                final long machine = TestExchange.ok(o, Envelope.newBuilder().setRegisterMachine(
                    RegisterMachine.newBuilder().setName("m1").setMarket(MARKET).setGpus(256))).getAssignedId();
                TestExchange.ok(o, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
                // trades over three days: several a minute, then minutes, hours and a day apart
                final long[] gaps = {0, 5_000, 20_000, 61_000, 240_000, 300_000, 3_600_000, 1_000, 7_200_000, 86_400_000, 30_000, 59_000};
                long order = 1;
                for (int i = 0; i < gaps.length; i++)
                {
                    now.addAndGet(gaps[i]);
                    final long price = 20_000 + (i * 7_919 % 13) * 500;
                    final int gpus = 1 + i % 4;
                    TestExchange.ok(o, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(order)
                        .setMachineId(machine).setGpus(gpus).setPrice(price)));
                    TestExchange.ok(r, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(order++)
                        .setMarket(MARKET).setGpus(gpus).setPrice(price).setTif(TimeInForce.IOC)));
                    trades.add(watcher.readUntil(Envelope.BodyCase.TRADE).getTrade());
                }
            }
            for (final CandleInterval interval : List.of(CandleInterval.INTERVAL_1M, CandleInterval.INTERVAL_5M,
                CandleInterval.INTERVAL_1H, CandleInterval.INTERVAL_1D))
            {
                final History h = history(watcher, HistoryRequest.newBuilder().setMarket(MARKET).setInterval(interval));
                assertEquals(candles(trades, millis(interval)), h.getCandlesList(), interval.toString());
                assertEquals(MARKET, h.getMarket());
                before.add(h);
            }
            final MarketInfo info = market(watcher);
            assertEquals(trades.get(trades.size() - 1).getPrice(), info.getLastPrice());
            final long dayAgo = now.get() - 86_400_000L;
            assertEquals(trades.stream().filter(t -> t.getTimeMs() > dayAgo + 60_000).mapToLong(Trade::getGpus).sum(),
                info.getVolume24H(), "the trades of the last day (whole minutes)");
            assertFalse(info.hasBestAsk(), "every ask was filled");
        }

        exchange.close();
        exchange = start(10);
        try (RawConnection watcher = marketDataLogin())
        {
            int i = 0;
            for (final CandleInterval interval : List.of(CandleInterval.INTERVAL_1M, CandleInterval.INTERVAL_5M,
                CandleInterval.INTERVAL_1H, CandleInterval.INTERVAL_1D))
            {
                assertEquals(before.get(i++), history(watcher, HistoryRequest.newBuilder().setMarket(MARKET).setInterval(interval)),
                    "after the restart: " + interval);
            }
            assertEquals(trades.get(trades.size() - 1).getPrice(), market(watcher).getLastPrice());
            // a range: the hour candles from the second hour on
            final History later = history(watcher, HistoryRequest.newBuilder().setMarket(MARKET)
                .setInterval(CandleInterval.INTERVAL_1H).setFromMs(T0 + 3_600_000));
            assertEquals(candles(trades, 3_600_000).stream().filter(c -> c.getStartMs() >= T0 + 3_600_000).toList(),
                later.getCandlesList());
        }
    }

    @Test
    void aMarketDataSessionCannotTradeNorReadAccounts() throws Exception
    {
        exchange = start(10);
        try (RawConnection c = marketDataLogin())
        {
            assertTrue(market(c).getSymbol().length() > 0);
            assertRefused(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(MARKET)
                .setGpus(1).setPrice(10_000)), Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder().setOrderId(1).setMachineId(1)
                .setGpus(1).setPrice(10_000)), Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setPortfolioRequest(PortfolioRequest.getDefaultInstance()), Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder().setName("x")
                .setMarket(MARKET).setGpus(1)), Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder().setName("mallory")
                .addRoles(Role.ADMIN)), Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount("mallory").setAmount(1)),
                Reason.NOT_AUTHORIZED);
            assertRefused(c, Envelope.newBuilder().setHistoryRequest(HistoryRequest.newBuilder().setMarket("NOPE")
                .setInterval(CandleInterval.INTERVAL_1H)), Reason.UNKNOWN_MARKET);
            assertRefused(c, Envelope.newBuilder().setHistoryRequest(HistoryRequest.newBuilder().setMarket(MARKET)), Reason.INVALID_REQUEST);
            assertRefused(c, Envelope.newBuilder().setHistoryRequest(HistoryRequest.newBuilder().setMarket(MARKET)
                .setInterval(CandleInterval.INTERVAL_1M).setFromMs(10).setToMs(10)), Reason.INVALID_REQUEST);
            assertEquals(0, history(c, HistoryRequest.newBuilder().setMarket(MARKET).setInterval(CandleInterval.INTERVAL_1D))
                .getCandlesCount(), "no trades, no candles");
        }
    }

    @Test
    void marketDataLoginsAreCountedAndCanBeTurnedOff() throws Exception
    {
        exchange = start(1);
        try (RawConnection first = marketDataLogin(); RawConnection second = new RawConnection(exchange.port()))
        {
            second.send(Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(0)).build());
            final Envelope refused = second.readNonHeartbeat();
            assertEquals(SessionErrorCode.SESSION_LIMIT, refused.getSessionError().getCode(), refused::toString);
            assertTrue(refused.getSessionError().getMessage().contains("market-data sessions"), refused::toString);
        }
        exchange.close();
        exchange = start(0);
        try (RawConnection c = new RawConnection(exchange.port()))
        {
            c.send(Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(0)).build());
            final Envelope refused = c.readNonHeartbeat();
            assertEquals(SessionErrorCode.SESSION_LIMIT, refused.getSessionError().getCode(), refused::toString);
            assertTrue(refused.getSessionError().getMessage().contains("no market-data logins"), refused::toString);
        }
    }

    @Test
    void aMarketDataSessionIsRateLimitedLikeAnyOther() throws Exception
    {
        exchange = Exchange.start(new ExchangeContext().dataDir(dir).port(0).bind("127.0.0.1").ratePerSecond(1).rateBurst(3)
            .sharedLoop(sharedLoop()).heartbeatIntervalMs(5_000).log(line -> { }));
        try (RawConnection c = marketDataLogin())
        {
            final List<Envelope.Builder> burst = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                burst.add(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance()));
            }
            c.requests(burst);
            int limited = 0;
            // the refusals are written at once, the answers once the core has read the markets: in any order
            for (int i = 0; i < burst.size(); i++)
            {
                final Envelope e = c.readNonHeartbeat();
                assertNotNull(e, "closed");
                if (e.getBodyCase() == Envelope.BodyCase.RESPONSE)
                {
                    assertEquals(Reason.RATE_LIMITED, e.getResponse().getReason(), e::toString);
                    limited++;
                }
            }
            assertTrue(limited >= 5, "a burst of 3, then 1 a second: " + limited + " of 10 limited");
        }
    }

    private static void assertRefused(final RawConnection c, final Envelope.Builder request, final Reason reason) throws IOException
    {
        final Envelope e = c.responseTo(c.request(request));
        assertEquals(Envelope.BodyCase.RESPONSE, e.getBodyCase(), e::toString);
        assertEquals(reason, e.getResponse().getReason(), e::toString);
    }

    private static History history(final RawConnection c, final HistoryRequest.Builder request) throws IOException
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setHistoryRequest(request)));
        assertEquals(Envelope.BodyCase.HISTORY, e.getBodyCase(), e::toString);
        return e.getHistory();
    }

    private static MarketInfo market(final RawConnection c) throws IOException
    {
        final Envelope e = c.responseTo(c.request(Envelope.newBuilder().setMarketsRequest(MarketsRequest.getDefaultInstance())));
        assertEquals(Envelope.BodyCase.MARKETS, e.getBodyCase(), e::toString);
        return e.getMarkets().getMarketsList().stream().filter(m -> m.getSymbol().equals(MARKET)).findFirst().orElseThrow();
    }

    private static long millis(final CandleInterval interval)
    {
        return switch (interval)
        {
            case INTERVAL_1M -> 60_000L;
            case INTERVAL_5M -> 300_000L;
            case INTERVAL_1H -> 3_600_000L;
            case INTERVAL_1D -> 86_400_000L;
            default -> throw new IllegalArgumentException(interval.toString());
        };
    }

    /**
     * The candles of the trades, recomputed: one per interval that had a trade, oldest first, those the
     * exchange keeps ({@link PriceHistory#SLOTS} intervals back from the newest).
     */
    private static List<Candle> candles(final List<Trade> trades, final long ms)
    {
        final TreeMap<Long, Candle.Builder> byStart = new TreeMap<>();
        for (final Trade t : trades)
        {
            final long start = Math.floorDiv(t.getTimeMs(), ms) * ms;
            final Candle.Builder c = byStart.get(start);
            if (c == null)
            {
                byStart.put(start, Candle.newBuilder().setStartMs(start).setOpen(t.getPrice()).setHigh(t.getPrice())
                    .setLow(t.getPrice()).setClose(t.getPrice()).setVolume(t.getGpus()).setTrades(1));
            }
            else
            {
                c.setHigh(Math.max(c.getHigh(), t.getPrice())).setLow(Math.min(c.getLow(), t.getPrice()))
                    .setClose(t.getPrice()).setVolume(c.getVolume() + t.getGpus()).setTrades(c.getTrades() + 1);
            }
        }
        return byStart.tailMap(byStart.lastKey() - (PriceHistory.SLOTS - 1) * ms, true).values().stream()
            .map(Candle.Builder::build).toList();
    }
}
