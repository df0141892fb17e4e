package io.gpux.gateway.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpux.engine.MatchingEngine;
import io.gpux.engine.book.BookSide;
import io.gpux.core.counters.CounterDescriptor;
import io.gpux.core.counters.CounterValue;
import io.gpux.engine.market.Market;
import io.gpux.core.pipeline.Query;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.gateway.marketdata.PriceHistory;
import io.gpux.gateway.metrics.Figures;
import io.gpux.proto.v1.Candle;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The exchange's live web dashboard, read-only: {@code GET /} is one page, {@code GET /state} the
 * dashboard's figures as one JSON document, and {@code GET /events} the same document as Server-Sent
 * Events, one event each time it changes. Per market: the book's best levels, the recent trades, the
 * one-minute candles, the GPUs leased and offered; and the exchange's health from its counters. A
 * viewer signed in with an API key also reads its own account ({@link AccountView}).
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

        /**
         * Null when {@code from} and {@code keyId} may try to sign in now, or why not: the failed tries of
         * the address or of the key have used up the exchange's login throttle, the same as for a Login.
         */
        String throttled(InetAddress from, long keyId);

        /**
         * The account of an API key given whole (key id and secret), or 0 for an unknown, revoked or wrong
         * one, which counts as a failed login of {@code from} and {@code keyId}.
         */
        long signIn(InetAddress from, long keyId, String secretHex);

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
        final AccountView accounts = new AccountView(sources);
        server.createContext("/signin", accounts::onSignIn);
        server.createContext("/signout", accounts::onSignOut);
        server.createContext("/account", accounts::onAccount);
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

    static void reply(final HttpExchange ex, final int status, final String type, final byte[] body) throws IOException
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
