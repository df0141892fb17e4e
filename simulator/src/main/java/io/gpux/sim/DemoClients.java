package io.gpux.sim;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.Response;
import io.gpux.sim.agent.Agent;
import io.gpux.sim.agent.Population;
import io.gpux.sim.market.ClientMarketAccess;
import io.gpux.sim.market.LatencyRecorder;
import io.gpux.sim.market.ScaledClock;
import io.gpux.sim.workload.WorkloadLane;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The demo's clients: one {@link GpuxClient} per agent (with its {@link ClientMarketAccess}), the
 * administrator's and the workload lane's, all on one two-thread event loop group. Sets up their
 * accounts, keys and deposits through the administrator, logs them in, and closes them all.
 */
final class DemoClients implements AutoCloseable
{
    private final PrintStream err;
    private final Population population;
    private final LatencyRecorder latency;
    private final LeaseTrail trail;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("gpux-demo-client", true),
        NioIoHandler.newFactory());
    private final List<GpuxClient> clients = new ArrayList<>();
    private final Map<GpuxClient, AtomicInteger> laneLogins = new ConcurrentHashMap<>();
    private final Map<String, GpuxClient> laneAccounts = new LinkedHashMap<>();
    private final Map<Agent, ClientMarketAccess> accesses = new HashMap<>();
    private final Map<Agent, Response> keys = new HashMap<>();
    private final AtomicInteger listenerErrorsPrinted = new AtomicInteger();

    /** @param trail hears every agent's and lane account's client. */
    DemoClients(final Population population, final LatencyRecorder latency, final LeaseTrail trail, final PrintStream err)
    {
        this.population = population;
        this.latency = latency;
        this.trail = trail;
        this.err = err;
    }

    /** Every agent's access (filled by {@link #setUpAccounts}). */
    Map<Agent, ClientMarketAccess> accesses()
    {
        return accesses;
    }

    ClientMarketAccess access(final Agent a)
    {
        return accesses.get(a);
    }

    /** The administrator's session, logged in with the exchange's admin key ({@code keyId:secret}). */
    AdminSession admin(final int port, final String adminKey) throws IOException, InterruptedException
    {
        final String[] key = adminKey.trim().split(":");
        final GpuxClient adminClient = new GpuxClient(context(port, Long.parseLong(key[0]), key[1], "admin"));
        clients.add(adminClient);
        adminClient.connect();
        return new AdminSession(adminClient);
    }

    /** A fresh client of the agent's account, not yet connected, that does not reconnect (for the audit). */
    GpuxClient auditClient(final int port, final Agent a)
    {
        final Response key = keys.get(a);
        return new GpuxClient(context(port, key.getAssignedId(), key.getSecret(), a.name() + "-audit").reconnect(false));
    }

    private ClientContext context(final int port, final long keyId, final String secret, final String name)
    {
        return new ClientContext()
            .host("127.0.0.1")
            .port(port)
            .keyId(keyId)
            .secretHex(secret)
            .eventLoopGroup(group)
            .clientName(name)
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .errorHandler(t ->
            {
                population.live.listenerErrors.increment();
                if (listenerErrorsPrinted.incrementAndGet() <= 5)
                {
                    err.println("gpux demo: " + name + ": a listener failed: " + t);
                    t.printStackTrace(err);
                }
            });
    }

    /** Accounts, keys and deposits for every agent; one client (and access) per agent. Returns the deposits' total. */
    long setUpAccounts(final AdminSession admin, final List<Agent> everyone, final int port, final ScaledClock clock)
        throws IOException, InterruptedException
    {
        // all in flight at once: the gateway knows an account as soon as its creation is published, so its
        // key and deposit can follow it in the same batch
        final GpuxClient c = admin.client();
        final List<LongSupplier> requests = new ArrayList<>();
        long total = 0;
        for (final Agent a : everyone)
        {
            requests.add(() -> c.createAccount(a.name(), AdminSession.role(Population.rolesOf(a))));
            requests.add(() -> c.createKey(a.name()));
            final long amount = Population.depositOf(a);
            if (amount > 0)
            {
                requests.add(() -> c.deposit(a.name(), amount));
                total += amount;
            }
        }
        final List<Response> answers = admin.all(requests, "account set-up");
        final List<Response> keyAnswers = new ArrayList<>();
        int k = 0;
        for (final Agent a : everyone)
        {
            keyAnswers.add(answers.get(k + 1));
            k += Population.depositOf(a) > 0 ? 3 : 2;
        }
        for (int i = 0; i < everyone.size(); i++)
        {
            final Agent a = everyone.get(i);
            final Response key = keyAnswers.get(i);
            this.keys.put(a, key);
            final GpuxClient client = new GpuxClient(context(port, key.getAssignedId(), key.getSecret(), a.name()));
            clients.add(client);
            client.addListener(trail.listener(a.name()));
            final ClientMarketAccess access = new ClientMarketAccess(client, clock, latency, population.live.commands);
            accesses.put(a, access);
        }
        return total;
    }

    /** The workload lane's accounts, keys and deposits, and their logged-in clients. */
    List<GpuxClient> laneClients(final AdminSession admin, final int port, final int jobs) throws IOException, InterruptedException
    {
        final GpuxClient c = admin.client();
        final List<WorkloadLane.Account> accounts = WorkloadLane.accounts(jobs);
        final List<LongSupplier> requests = new ArrayList<>();
        for (final WorkloadLane.Account a : accounts)
        {
            requests.add(() -> c.createAccount(a.name(), a.role()));
            requests.add(() -> c.createKey(a.name()));
            if (a.deposit() > 0)
            {
                requests.add(() -> c.deposit(a.name(), a.deposit()));
            }
        }
        final List<Response> answers = admin.all(requests, "workload lane set-up");
        final List<GpuxClient> lane = new ArrayList<>();
        int k = 0;
        for (final WorkloadLane.Account a : accounts)
        {
            final Response key = answers.get(k + 1);
            k += a.deposit() > 0 ? 3 : 2;
            final GpuxClient client = new GpuxClient(context(port, key.getAssignedId(), key.getSecret(), a.name()));
            clients.add(client);
            client.addListener(trail.listener(a.name()));
            final AtomicInteger logins = new AtomicInteger();
            laneLogins.put(client, logins);
            client.addListener(new ClientListener()
            {
                @Override
                public void onLoginAccepted(final LoginAccepted accepted)
                {
                    logins.incrementAndGet();
                }
            });
            client.connect();
            lane.add(client);
            laneAccounts.put(a.name(), client);
        }
        return lane;
    }

    /** The workload lane's clients by account name (none without a lane). */
    Map<String, GpuxClient> laneAccounts()
    {
        return laneAccounts;
    }

    /** Whether every client of the workload lane is connected again after a restart (logged in twice or more); true without a lane. */
    boolean laneReconnected()
    {
        for (final Map.Entry<GpuxClient, AtomicInteger> c : laneLogins.entrySet())
        {
            if (!c.getKey().isConnected() || c.getValue().get() < 2)
            {
                return false;
            }
        }
        return true;
    }

    /** Attaches every agent to its access and logs its client in, eight at a time. */
    void connectAll(final List<Agent> everyone) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try
        {
            final List<Future<?>> done = new ArrayList<>();
            for (final Agent a : everyone)
            {
                final ClientMarketAccess access = accesses.get(a);
                done.add(pool.submit(() ->
                {
                    a.attach(access);
                    access.client().connect();
                    return null;
                }));
            }
            for (final Future<?> f : done)
            {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** How many agents are connected again after a restart of the exchange (logged in twice or more). */
    int reconnected(final List<Agent> everyone)
    {
        int n = 0;
        for (final Agent a : everyone)
        {
            final ClientMarketAccess access = accesses.get(a);
            n += access.isConnected() && access.logins() >= 2 ? 1 : 0;
        }
        return n;
    }

    /** Runs a no-op on every agent's thread and waits: what the agents wrote is then visible here. */
    void barrier(final List<Agent> everyone) throws InterruptedException
    {
        final CountDownLatch latch = new CountDownLatch(everyone.size());
        for (final Agent a : everyone)
        {
            accesses.get(a).execute(latch::countDown);
        }
        latch.await(10, TimeUnit.SECONDS);
    }

    /** What the agents' answers tell of the exchange. */
    record AnswerFigures(long maxCommandSeq, long settledAfterReconnect)
    {
    }

    /** The highest command sequence any agent's answers carried, and the answers settled from events after a reconnect. */
    AnswerFigures answerFigures()
    {
        long maxCommandSeq = 0;
        long settled = 0;
        for (final ClientMarketAccess a : accesses.values())
        {
            maxCommandSeq = Math.max(maxCommandSeq, a.maxCommandSeq());
            settled += a.settledAfterReconnect();
        }
        return new AnswerFigures(maxCommandSeq, settled);
    }

    /** Closes every client (the event loop group stays up). */
    void closeClients()
    {
        for (final GpuxClient c : clients)
        {
            c.close();
        }
        clients.clear();
        laneLogins.clear();
        laneAccounts.clear();
    }

    /** Closes every client, then the event loop group. */
    @Override
    public void close()
    {
        closeClients();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
