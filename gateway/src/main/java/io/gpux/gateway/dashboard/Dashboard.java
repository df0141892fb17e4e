package io.gpux.gateway.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.BookSide;
import io.gpux.engine.counters.CounterDescriptor;
import io.gpux.engine.counters.CounterValue;
import io.gpux.engine.market.Market;
import io.gpux.engine.pipeline.Query;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.gateway.metrics.Figures;
import io.gpux.proto.v1.Candle;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The exchange's live web dashboard, read-only: {@code GET /} is one page, {@code GET /state} the
 * dashboard's figures as one JSON document, and {@code GET /events} the same document as Server-Sent
 * Events, one event each time it changes. Per market: the book's best levels, the recent trades, the
 * one-minute candles, the GPUs leased and offered; and the exchange's health from its counters.
 *
 * <p>Nothing of it runs on the engine's thread but a read of the books, queued as a query every
 * {@link #REFRESH_MS} ms like any other; the trades and candles are read on the egress's thread, which
 * keeps the price history, and the counters here. The figures are put together on the dashboard's own
 * thread and served by the JDK's HTTP server.
 */
public final class Dashboard implements AutoCloseable
{
    /** How often the figures are gathered and, when they changed, pushed. */
    public static final long REFRESH_MS = 200;
    /** Book levels shown per side. */
    public static final int LEVELS = 10;
    /** Recent trades kept per market. */
    public static final int TRADES = 20;
    /** One-minute candles shown per market. */
    public static final int CANDLES = 60;
    /** Viewers signed in at once at most; one more signs the longest signed-in out. */
    public static final int MAX_SIGNED_IN = 256;
    /** The cookie that names a signed-in viewer. */
    static final String COOKIE = "gpux_dashboard";
    /** Event streams open at once at most; one more is answered 503. */
    public static final int MAX_STREAMS = 32;
    private static final long KEEP_ALIVE_NS = TimeUnit.SECONDS.toNanos(15);
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the dashboard reaches the exchange's threads. */
    public interface Sources
    {
        /** Queues a read of the engine on its thread; false when the input ring is full (tried again next time). */
        boolean query(Query query);

        /** Queues a read of the price history on the egress thread; false when its inbox is full. */
        boolean peek(Egress.Peek peek);

        /** The account of an API key given whole (key id and secret), or 0 for an unknown, revoked or wrong one. */
        long signIn(long keyId, String secretHex);

        /** The account of a key, or 0 when there is no such key or it was revoked. */
        long keyAccount(long keyId);

        /** On the engine's thread: a copy of the account's orders, leases and machines. */
        PortfolioView portfolio(MatchingEngine engine, long accountId);
    }

    record Level(long price, long gpus)
    {
    }

    record Book(long id, String symbol, boolean halted, List<Level> bids, List<Level> asks)
    {
    }

    record Trade(long timeMs, long price, int gpus)
    {
    }

    record Bar(long startMs, long open, long high, long low, long close, long volume)
    {
    }

    record MarketView(String symbol, boolean halted, List<Level> bids, List<Level> asks, List<Trade> trades,
        List<Bar> candles, long leasedGpus, long activeLeases, long offeredGpus)
    {
    }

    record Health(long sessions, long connections, long requests, long commands, long slowConsumers,
        long eventSequence, long egressBacklog, long snapshotAgeMs, Map<String, Long> counters)
    {
    }

    record State(List<MarketView> markets, Health health)
    {
    }

    /**
     * The last trades of each market, kept on the egress thread (it is told every trade there): give it
     * to the egress before the egress starts, so that it sees the journal's trades from its start.
     */
    public static final class TradeTape implements Egress.TradeTap
    {
        private final Long2ObjectHashMap<long[]> rings = new Long2ObjectHashMap<>();
        private final Long2ObjectHashMap<int[]> counts = new Long2ObjectHashMap<>();

        @Override
        public void onTrade(final long marketId, final long timeMs, final long price, final int gpus)
        {
            long[] ring = rings.get(marketId);
            int[] count = counts.get(marketId);
            if (ring == null)
            {
                ring = new long[TRADES * 3];
                count = new int[1];
                rings.put(marketId, ring);
                counts.put(marketId, count);
            }
            final int i = (count[0] % TRADES) * 3;
            ring[i] = timeMs;
            ring[i + 1] = price;
            ring[i + 2] = gpus;
            count[0]++;
        }

        /** The market's trades, newest first. */
        List<Trade> of(final long marketId)
        {
            final long[] ring = rings.get(marketId);
            if (ring == null)
            {
                return List.of();
            }
            final int count = counts.get(marketId)[0];
            final List<Trade> out = new ArrayList<>();
            for (int k = count - 1; k >= Math.max(0, count - TRADES); k--)
            {
                final int i = (k % TRADES) * 3;
                out.add(new Trade(ring[i], ring[i + 1], (int)ring[i + 2]));
            }
            return out;
        }
    }

    /** What the egress thread read: per market id, the recent trades and candles. */
    private record Tape(Map<Long, List<Trade>> trades, Map<Long, List<Bar>> candles)
    {
    }

    private final HttpServer server;
    private final ExecutorService httpThreads;
    private final ScheduledExecutorService thread;
    private final Sources sources;
    private final CountersReader counters;
    private final EpochClock wallClock;
    private final TradeTape recent;
    private final List<OutputStream> listeners = new CopyOnWriteArrayList<>();
    /** Event streams open or being opened: counted by the HTTP threads when taken, by this thread when dropped. */
    private final AtomicInteger streams = new AtomicInteger();
    private final byte[] page;
    private final Consumer<String> log;
    /** Written by the engine's thread, read here and by the egress's thread. */
    private volatile List<Book> books = List.of();
    /** Written by the egress's thread, read here. */
    private volatile Tape tape = new Tape(Map.of(), Map.of());
    /** The last picture pushed; written here, read by the HTTP threads. */
    private volatile String json = "{}";
    /** Signed-in viewers: token to the key they signed in with, the oldest first. */
    private final Map<String, Long> signedIn = new LinkedHashMap<>();
    private final SecureRandom random = new SecureRandom();
    /** The dashboard thread's own. */
    private boolean failureLogged;
    private long lastPushNs = System.nanoTime();

    private Dashboard(final HttpServer server, final Sources sources, final TradeTape tape, final CountersReader counters,
        final EpochClock wallClock, final Consumer<String> log) throws IOException
    {
        this.log = log;
        this.server = server;
        this.recent = tape;
        this.sources = sources;
        this.counters = counters;
        this.wallClock = wallClock;
        try (InputStream in = Dashboard.class.getResourceAsStream("index.html"))
        {
            if (in == null)
            {
                throw new IOException("the dashboard's page is missing from the build");
            }
            page = in.readAllBytes();
        }
        httpThreads = Executors.newFixedThreadPool(2, r -> daemon(r, "gpux-dashboard-http"));
        thread = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "gpux-dashboard"));
        server.setExecutor(httpThreads);
        server.createContext("/", this::onPage);
        server.createContext("/state", this::onState);
        server.createContext("/events", this::onEvents);
        server.createContext("/signin", this::onSignIn);
        server.createContext("/signout", this::onSignOut);
        server.createContext("/account", this::onAccount);
    }

    /**
     * Serves the dashboard on {@code bind:port} (port 0: any free one), its trades from {@code tape}; it
     * serves once {@link #start()} is called.
     *
     * @throws BindException with a one-line reason when the port cannot be had.
     */
    public static Dashboard create(final String bind, final int port, final Sources sources, final TradeTape tape,
        final CountersReader counters, final EpochClock wallClock, final Consumer<String> log) throws IOException
    {
        final HttpServer server;
        try
        {
            server = HttpServer.create(new InetSocketAddress(bind, port), 16);
        }
        catch (final IOException ex)
        {
            final BindException bindFailed = new BindException("cannot serve the dashboard on " + bind + ":" + port + ": " +
                (ex.getMessage() != null ? ex.getMessage() : ex.getClass().getSimpleName()));
            bindFailed.initCause(ex);
            throw bindFailed;
        }
        return new Dashboard(server, sources, tape, counters, wallClock, log);
    }

    /** Starts serving and gathering. */
    public void start()
    {
        server.start();
        thread.scheduleWithFixedDelay(this::refresh, 0, REFRESH_MS, TimeUnit.MILLISECONDS);
    }

    /** The port the dashboard listens on. */
    public int port()
    {
        return server.getAddress().getPort();
    }

    private void refresh()
    {
        try
        {
            sources.query(this::readBooks);
            sources.peek(new Egress.Peek(this::readTape));
            final State state = gather();
            final String next = JSON.writeValueAsString(state);
            if (!next.equals(json))
            {
                json = next;
                push(("data: " + next + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            else if (System.nanoTime() - lastPushNs > KEEP_ALIVE_NS)
            {
                // a comment line: browsers ignore it, and a stream whose viewer left fails to take it and is dropped
                push(KEEP_ALIVE);
            }
        }
        catch (final RuntimeException | JsonProcessingException ex)
        {
            // a bad read must not stop the dashboard (the next refresh tries again), but the operator hears of the first
            if (!failureLogged)
            {
                failureLogged = true;
                log.accept("dashboard: a refresh failed (" + ex + "); it keeps trying, this is said once");
            }
        }
    }

    /** The engine's thread: copies the best levels of every market. */
    private void readBooks(final MatchingEngine engine)
    {
        final List<Book> read = new ArrayList<>();
        for (final Market m : engine.markets())
        {
            read.add(new Book(m.id, m.name, m.halted, levels(m.bids), levels(m.asks)));
        }
        read.sort((a, b) -> a.symbol().compareTo(b.symbol()));
        books = read;
    }

    private static List<Level> levels(final BookSide side)
    {
        final int n = Math.min(LEVELS, side.levelCount());
        final List<Level> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            out.add(new Level(side.level(i).price(), side.level(i).gpus()));
        }
        return out;
    }

    /** The egress's thread: the recent trades and the one-minute candles of the markets known. */
    private void readTape(final PriceHistory history)
    {
        final Map<Long, List<Trade>> trades = new LinkedHashMap<>();
        final Map<Long, List<Bar>> candles = new LinkedHashMap<>();
        for (final Book b : books)
        {
            trades.put(b.id(), recent.of(b.id()));
            final List<Candle> all = history.history(b.id(), PriceHistory.Interval.ONE_MINUTE, Long.MIN_VALUE, Long.MAX_VALUE)
                .getCandlesList();
            final List<Bar> bars = new ArrayList<>();
            for (final Candle c : all.subList(Math.max(0, all.size() - CANDLES), all.size()))
            {
                bars.add(new Bar(c.getStartMs(), c.getOpen(), c.getHigh(), c.getLow(), c.getClose(), c.getVolume()));
            }
            candles.put(b.id(), bars);
        }
        tape = new Tape(trades, candles);
    }

    private State gather()
    {
        final List<CounterValue> values = CounterValue.readAll(counters);
        final Tape t = tape;
        final List<MarketView> markets = new ArrayList<>();
        for (final Book b : books)
        {
            markets.add(new MarketView(b.symbol(), b.halted(), b.bids(), b.asks(),
                t.trades().getOrDefault(b.id(), List.of()), t.candles().getOrDefault(b.id(), List.of()),
                Math.max(0, CounterValue.find(values, CounterDescriptor.MARKET_LEASED_GPUS, b.symbol())),
                Math.max(0, CounterValue.find(values, CounterDescriptor.MARKET_ACTIVE_LEASES, b.symbol())),
                Math.max(0, CounterValue.find(values, CounterDescriptor.MARKET_ASK_GPUS, b.symbol()))));
        }
        final Map<String, Long> all = new LinkedHashMap<>();
        final Predicate<CounterValue> perMarket = v -> v.figure().metricName().startsWith("gpux_market_");
        for (final CounterValue v : values)
        {
            if (!perMarket.test(v))
            {
                all.put(v.label() == null || v.label().isEmpty() ? v.figure().metricName() : v.label(), v.value());
            }
        }
        final long now = wallClock.time();
        final Health health = new Health(
            CounterValue.find(values, CounterDescriptor.SESSIONS),
            CounterValue.find(values, CounterDescriptor.CONNECTIONS),
            CounterValue.find(values, CounterDescriptor.REQUESTS),
            CounterValue.find(values, CounterDescriptor.COMMANDS),
            CounterValue.find(values, CounterDescriptor.SLOW_CONSUMERS),
            CounterValue.find(values, CounterDescriptor.EVENT_SEQUENCE),
            Figures.egressBacklog(values),
            roundedAge(Figures.snapshotAgeMs(values, now)),
            all);
        return new State(markets, health);
    }

    /** Whole seconds, so that the figures change (and are pushed) at most once a second for it. */
    private static long roundedAge(final long ageMs)
    {
        return ageMs < 0 ? ageMs : ageMs / 1000 * 1000;
    }

    /** Writes the event to every open stream; a browser that does not read holds this thread up, never the exchange's. */
    private void push(final byte[] event)
    {
        lastPushNs = System.nanoTime();
        for (final OutputStream out : listeners)
        {
            try
            {
                out.write(event);
                out.flush();
            }
            catch (final IOException ex)
            {
                drop(out);
            }
        }
    }

    private void onPage(final HttpExchange ex) throws IOException
    {
        if (!"/".equals(ex.getRequestURI().getPath()) && !"/index.html".equals(ex.getRequestURI().getPath()))
        {
            reply(ex, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        reply(ex, 200, "text/html; charset=utf-8", page);
    }

    private void onState(final HttpExchange ex) throws IOException
    {
        reply(ex, 200, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    private void onEvents(final HttpExchange ex) throws IOException
    {
        if (!"GET".equals(ex.getRequestMethod()))
        {
            reply(ex, 405, "text/plain; charset=utf-8", "GET only\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (streams.incrementAndGet() > MAX_STREAMS)
        {
            streams.decrementAndGet();
            reply(ex, 503, "text/plain; charset=utf-8", ("the dashboard has " + MAX_STREAMS +
                " viewers already; try again later\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.sendResponseHeaders(200, 0);
        final OutputStream out = ex.getResponseBody();
        // the current figures at once, on the dashboard thread so that no push comes between them and the next ones
        thread.execute(() ->
        {
            listeners.add(out);
            try
            {
                out.write(("retry: 1000\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            catch (final IOException closed)
            {
                drop(out);
            }
        });
    }

    private void drop(final OutputStream out)
    {
        if (listeners.remove(out))
        {
            streams.decrementAndGet();
        }
        closeQuietly(out);
    }

    /** POST {@code KEY_ID:SECRET} (as {@code gpux} key files hold it): a cookie for the account's own view. */
    private void onSignIn(final HttpExchange ex) throws IOException
    {
        if (!"POST".equals(ex.getRequestMethod()))
        {
            reply(ex, 405, "text/plain; charset=utf-8", "POST only\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final String key = new String(ex.getRequestBody().readNBytes(256), StandardCharsets.UTF_8).trim();
        final int colon = key.indexOf(':');
        long account = 0;
        long keyId = 0;
        if (colon > 0)
        {
            try
            {
                keyId = Long.parseLong(key.substring(0, colon));
                account = sources.signIn(keyId, key.substring(colon + 1));
            }
            catch (final NumberFormatException notAKeyId)
            {
                account = 0;
            }
        }
        if (account == 0)
        {
            reply(ex, 401, "text/plain; charset=utf-8",
                "unknown key or wrong secret (give KEY_ID:SECRET, as in the key file)\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final byte[] bytes = new byte[24];
        random.nextBytes(bytes);
        final String token = HexFormat.of().formatHex(bytes);
        synchronized (signedIn)
        {
            if (signedIn.size() >= MAX_SIGNED_IN)
            {
                signedIn.remove(signedIn.keySet().iterator().next());
            }
            signedIn.put(token, keyId);
        }
        ex.getResponseHeaders().set("Set-Cookie", COOKIE + "=" + token + "; Path=/; HttpOnly; SameSite=Strict");
        reply(ex, 200, "text/plain; charset=utf-8", "signed in\n".getBytes(StandardCharsets.UTF_8));
    }

    private void onSignOut(final HttpExchange ex) throws IOException
    {
        final String token = token(ex);
        if (token != null)
        {
            synchronized (signedIn)
            {
                signedIn.remove(token);
            }
        }
        ex.getResponseHeaders().set("Set-Cookie", COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
        reply(ex, 200, "text/plain; charset=utf-8", "signed out\n".getBytes(StandardCharsets.UTF_8));
    }

    /** The signed-in viewer's own account, read-only: balance, open orders, leases, machines. */
    private void onAccount(final HttpExchange ex) throws IOException
    {
        final String token = token(ex);
        final Long keyId;
        synchronized (signedIn)
        {
            keyId = token == null ? null : signedIn.get(token);
        }
        // the key is looked up each time: a key revoked since the sign-in shows nothing more
        final long account = keyId == null ? 0 : sources.keyAccount(keyId);
        if (account == 0)
        {
            reply(ex, 401, "text/plain; charset=utf-8", "not signed in\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final CompletableFuture<PortfolioView> read = new CompletableFuture<>();
        if (!sources.query(engine -> read.complete(sources.portfolio(engine, account))))
        {
            reply(ex, 503, "text/plain; charset=utf-8", "the exchange is busy; try again\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final Portfolio p;
        try
        {
            p = read.get(5, TimeUnit.SECONDS).encode().build();
        }
        catch (final InterruptedException | ExecutionException | TimeoutException failed)
        {
            reply(ex, 503, "text/plain; charset=utf-8", "the exchange did not answer; try again\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        final List<Map<String, Object>> orders = new ArrayList<>();
        for (final OpenOrder o : p.getOrdersList())
        {
            orders.add(Map.of("orderId", o.getOrderId(), "market", o.getMarket(), "side", o.getSide().name(),
                "price", o.getPrice(), "openGpus", o.getOpenGpus()));
        }
        final List<Map<String, Object>> leases = new ArrayList<>();
        for (final LeaseInfo l : p.getLeasesList())
        {
            leases.add(Map.of("leaseId", l.getLeaseId(), "market", l.getMarket(), "gpus", l.getGpus(), "price", l.getPrice(),
                "state", l.getState().name(), "renter", l.getRenter(), "startMs", l.getStartMs(), "cost", l.getCost()));
        }
        final Map<String, Object> view = new LinkedHashMap<>();
        view.put("balance", p.getBalance());
        view.put("available", p.getAvailable());
        view.put("orders", orders);
        view.put("leases", leases);
        view.put("machines", p.getMachinesCount());
        reply(ex, 200, "application/json", JSON.writeValueAsBytes(view));
    }

    private static String token(final HttpExchange ex)
    {
        for (final String header : ex.getRequestHeaders().getOrDefault("Cookie", List.of()))
        {
            for (final String part : header.split(";"))
            {
                final String kv = part.trim();
                if (kv.startsWith(COOKIE + "="))
                {
                    return kv.substring(COOKIE.length() + 1);
                }
            }
        }
        return null;
    }

    private static void reply(final HttpExchange ex, final int status, final String type, final byte[] body) throws IOException
    {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody())
        {
            out.write(body);
        }
    }

    private static void closeQuietly(final OutputStream out)
    {
        try
        {
            out.close();
        }
        catch (final IOException ignored)
        {
            // already gone
        }
    }

    private static Thread daemon(final Runnable r, final String name)
    {
        final Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close()
    {
        thread.shutdownNow();
        for (final OutputStream out : listeners)
        {
            closeQuietly(out);
        }
        listeners.clear();
        server.stop(0);
        httpThreads.shutdownNow();
    }
}
