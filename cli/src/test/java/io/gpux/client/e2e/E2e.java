package io.gpux.client.e2e;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.client.agent.AgentWorkloads;
import io.gpux.client.agent.NvidiaSmi;
import io.gpux.client.agent.OwnerAgent;
import io.gpux.client.agent.OwnerAgentContext;
import io.gpux.client.agent.workload.WorkloadSupervisorContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** What the end-to-end tests share: clients, accounts, waiting. */
final class E2e
{
    static final String MARKET = "H100-SXM-80G";
    /** How long any single step may take: generous, for a loaded 2-core CI machine. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** An API key. */
    record Key(long id, String secret)
    {
    }

    private E2e()
    {
    }

    /** A connected (logged-in) client of a key, with the recorder as its first listener. */
    static GpuxClient connect(final int port, final Key key, final Recorder recorder, final Consumer<ClientContext> settings)
        throws IOException, InterruptedException
    {
        final ClientContext ctx = new ClientContext()
            .host("127.0.0.1").port(port).keyId(key.id()).secretHex(key.secret())
            .listener(recorder).clientName("e2e-" + recorder.name);
        if (settings != null)
        {
            settings.accept(ctx);
        }
        final GpuxClient client = new GpuxClient(ctx);
        try
        {
            client.connect();
        }
        catch (final IOException | RuntimeException ex)
        {
            client.close();
            throw ex;
        }
        return client;
    }

    /** A connected client that reconnects within 50 to 200 ms and ignores its own errors, added to {@code opened}. */
    static GpuxClient connectQuick(final int port, final Key key, final Recorder recorder, final List<AutoCloseable> opened)
        throws IOException, InterruptedException
    {
        final GpuxClient client = connect(port, key, recorder,
            c -> c.reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).errorHandler(t -> { }));
        opened.add(client);
        return client;
    }

    /**
     * An owner agent of machine m1 on the fake nvidia-smi (written into {@code dir}), asking at 1.0 in
     * {@code market}, beating every 200 ms, running workloads with the supervisor settings (null: none);
     * added to {@code opened}, not started.
     */
    static OwnerAgent workloadAgent(final GpuxClient owner, final String market, final Path dir,
        final WorkloadSupervisorContext workloads, final Consumer<String> log, final List<AutoCloseable> opened)
        throws IOException
    {
        return workloadAgent(owner, market, "m1", dir, workloads, log, opened);
    }

    /** {@link #workloadAgent(GpuxClient, String, Path, WorkloadSupervisorContext, Consumer, List)} of another machine. */
    static OwnerAgent workloadAgent(final GpuxClient owner, final String market, final String machine, final Path dir,
        final WorkloadSupervisorContext workloads, final Consumer<String> log, final List<AutoCloseable> opened)
        throws IOException
    {
        return workloadAgent(owner, market, machine, Duration.ofMillis(200), dir, workloads, log, opened);
    }

    /** The workload agent of a machine, with its heartbeat interval. */
    static OwnerAgent workloadAgent(final GpuxClient owner, final String market, final String machine,
        final Duration interval, final Path dir, final WorkloadSupervisorContext workloads, final Consumer<String> log,
        final List<AutoCloseable> opened) throws IOException
    {
        final OwnerAgent agent = new OwnerAgent(new OwnerAgentContext().client(owner).machineName(machine).market(market)
            .reservePrice(Money.parsePrice("1.0")).nvidiaSmi(new NvidiaSmi(FakeNvidiaSmi.write(dir).toString(), TIMEOUT))
            .heartbeatInterval(interval).requestTimeout(Duration.ofSeconds(10))
            .workloads(new AgentWorkloads(owner, workloads, 100, log)));
        opened.add(agent);
        return agent;
    }

    static GpuxClient connect(final int port, final Key key, final Recorder recorder) throws IOException, InterruptedException
    {
        return connect(port, key, recorder, null);
    }

    /** Sends a request and waits for its Response, which must be REASON_OK. */
    static Response ok(final GpuxClient client, final Envelope.Builder request)
        throws IOException, InterruptedException, TimeoutException
    {
        final Response response = client.call(request, TIMEOUT);
        assertEquals(Reason.REASON_OK, response.getReason(), () -> request.getBodyCase() + " answered " + response);
        return response;
    }

    /** Creates an account with one role and a key, and deposits {@code deposit} micro-units if positive. */
    static Key account(final GpuxClient admin, final String name, final Role role, final long deposit)
        throws IOException, InterruptedException, TimeoutException
    {
        ok(admin, Envelope.newBuilder().setCreateAccount(CreateAccount.newBuilder().setName(name).addRoles(role)));
        if (deposit > 0)
        {
            ok(admin, Envelope.newBuilder().setDeposit(Deposit.newBuilder().setAccount(name).setAmount(deposit)));
        }
        final Response key = ok(admin, Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)));
        assertEquals(64, key.getSecret().length(), key::toString);
        return new Key(key.getAssignedId(), key.getSecret());
    }

    /** An owner agent's heartbeat for a machine, for a scheduled task: skipped while the client is not connected. */
    static void machineHeartbeat(final GpuxClient client, final long machine)
    {
        try
        {
            if (client.isConnected())
            {
                client.machineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine).build());
            }
        }
        catch (final IllegalStateException ignored)
        {
            // disconnected or closed: the next tick tries again
        }
    }

    /** Copies a resource of {@code e2e/} to a file of the directory. */
    static Path resource(final String name, final Path dir) throws IOException
    {
        final Path file = dir.resolve(name);
        try (InputStream in = E2e.class.getResourceAsStream("/e2e/" + name))
        {
            if (in == null)
            {
                throw new IOException("no test resource e2e/" + name);
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /** Polls until the condition holds; fails after the timeout, saying what it waited for. */
    static void await(final String what, final Duration timeout, final BooleanSupplier condition, final Supplier<String> detail)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what
                    + (detail == null ? "" : "\n" + detail.get()));
            }
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    /** Whether the file exists and has the text (it may not have been written yet). */
    static boolean fileSays(final Path file, final String text)
    {
        try
        {
            return Files.exists(file) && Files.readString(file).contains(text);
        }
        catch (final IOException notYet)
        {
            return false;
        }
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        await(what, TIMEOUT, condition, null);
    }

    /**
     * Waits for a task on the client's own event loop that is due this long from now: whatever that loop had planned
     * for sooner (a reconnect after a disconnect, say) has run by then. The positive marker of a "nothing happened" check.
     */
    static void awaitClientLoopPast(final GpuxClient client, final Duration delay) throws InterruptedException
    {
        final CountDownLatch ran = new CountDownLatch(1);
        client.schedule(delay.toMillis(), ran::countDown);
        if (!ran.await(delay.plus(TIMEOUT).toMillis(), TimeUnit.MILLISECONDS))
        {
            fail("the client's event loop did not run a task due in " + delay.toMillis() + " ms");
        }
    }

    /** Events one a line, for failure messages (the last 60 at most). */
    static String describe(final List<AccountEvent> events)
    {
        final List<AccountEvent> tail = events.size() > 60 ? events.subList(events.size() - 60, events.size()) : events;
        return tail.stream()
            .map(e -> "  seq=" + e.getSeq() + " t=" + e.getTimeMs() + " " + e.getKindCase() + " " + switch (e.getKindCase())
            {
                case ACCEPTED -> e.getAccepted().toString();
                case REJECTED -> e.getRejected().toString();
                case CANCELLED -> e.getCancelled().toString();
                case FILL -> e.getFill().toString();
                case LEASE_STARTED -> e.getLeaseStarted().toString();
                case PREEMPT_NOTICE -> e.getPreemptNotice().toString();
                case LEASE_ENDED -> e.getLeaseEnded().toString();
                case SETTLED -> e.getSettled().toString();
                case BALANCE -> e.getBalance().toString();
                case MACHINE_ONLINE -> e.getMachineOnline().toString();
                case MACHINE_OFFLINE -> e.getMachineOffline().toString();
                default -> "";
            })
            .map(s -> s.replace('\n', ' '))
            .collect(Collectors.joining("\n"));
    }

    /** Closes what a test opened, the last opened first, then the server, quietly (for @AfterEach). */
    static void closeAllQuietly(final List<AutoCloseable> opened, final AutoCloseable server)
    {
        for (int i = opened.size() - 1; i >= 0; i--)
        {
            closeQuietly(opened.get(i));
        }
        closeQuietly(server);
    }

    /** Closes clients, ignoring nulls and failures (for @AfterEach). */
    static void closeQuietly(final AutoCloseable... closeables)
    {
        for (final AutoCloseable c : closeables)
        {
            if (c != null)
            {
                try
                {
                    c.close();
                }
                catch (final Exception ex)
                {
                    System.err.println("e2e: closing " + c + " failed: " + ex);
                }
            }
        }
    }
}
