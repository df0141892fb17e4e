package io.gpux.client.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.gateway.Exchange;
import io.gpux.gateway.ExchangeContext;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the owner agent tests share: the owner agent against a real exchange in process, one per test JVM, with a fake
 * nvidia-smi (a shell script printing the captured H200 output for two GPUs). Each test opens accounts, markets and
 * machines of its own names. The agents read a clock the test moves: while a test waits for something, each poll moves
 * it one heartbeat interval and wakes the agents, so intervals go by as fast as the agents run them, never at the pace
 * of the wall clock.
 */
abstract class OwnerAgentHarness
{
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final Duration INTERVAL = Duration.ofMillis(100);
    static final String UUID_2 = "GPU-5f1d0c2e-0000-4000-8000-000000000002";

    /** The exchange the owner agent test classes of this JVM share, and its admin's client: started once, closed at exit. */
    static Exchange exchange;
    static GpuxClient admin;

    @TempDir
    Path dir;
    final List<AutoCloseable> closeAfter = new ArrayList<>();
    /** The agents' clock: it moves only when a test moves it. */
    final CachedNanoClock clock = new CachedNanoClock();
    final List<OwnerAgent> agents = new CopyOnWriteArrayList<>();

    @BeforeAll
    static synchronized void startExchange() throws Exception
    {
        if (exchange != null)
        {
            return;
        }
        final Path exchangeDir = Files.createTempDirectory("gpux-agent-test-");
        exchange = Exchange.start(exchangeContext(exchangeDir).port(0));
        final Exchange.Key key = exchange.bootstrapKey();
        admin = connect(exchange.port(), key.keyId(), key.secret(), null);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopExchange(exchangeDir), "owner-agent-test-exchange"));
    }

    private static void stopExchange(final Path exchangeDir)
    {
        admin.close();
        exchange.close();
        try (Stream<Path> paths = Files.walk(exchangeDir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * An exchange with a generous session heartbeat: the gateway drops a connection that sends nothing
     * for two intervals before its Login, which a cold client on a busy 2-core machine can miss.
     */
    static ExchangeContext exchangeContext(final Path dataDir)
    {
        return new ExchangeContext().dataDir(dataDir).heartbeatIntervalMs(5_000).loginTimeoutMs(10_000).log(line -> { });
    }

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = closeAfter.size() - 1; i >= 0; i--)
        {
            closeAfter.get(i).close();
        }
    }


    OwnerAgent agent(final OwnerAgentContext settings) throws IOException
    {
        final OwnerAgent agent = new OwnerAgent(settings.nvidiaSmi(new NvidiaSmi(fakeNvidiaSmi(), TIMEOUT))
            .heartbeatInterval(INTERVAL).requestTimeout(TIMEOUT).nanoClock(clock));
        closeAfter.add(agent);
        agents.add(agent);
        return agent;
    }

    /**
     * A script that prints the H200 fixture for two GPUs (the captured one and a copy with another
     * uuid): discovery from query-idle.csv, telemetry from the first sample of telemetry-load.csv; it
     * fails like a broken driver while a file named {@code fail} is next to it.
     */
    String fakeNvidiaSmi() throws IOException
    {
        final Path script = dir.resolve("nvidia-smi");
        if (Files.exists(script))
        {
            // written once per test: rewriting it while another agent of the test runs it fails (text file busy)
            return script.toString();
        }
        final String[] idle = H200Fixtures.read("query-idle.csv").split("\n");
        Files.writeString(dir.resolve("discovery.csv"),
            idle[0] + "\n" + idle[1] + "\n" + idle[1].replace(H200Fixtures.UUID, UUID_2) + "\n");
        final String[] load = H200Fixtures.read("telemetry-load.csv").split("\n");
        Files.writeString(dir.resolve("telemetry.csv"),
            load[0] + "\n" + load[1] + "\n" + load[1].replace(H200Fixtures.UUID, UUID_2) + "\n");
        Files.writeString(script, "#!/bin/sh\n"
            + "d='" + dir + "'\n"
            + "if [ -e \"$d/fail\" ]; then echo 'NVIDIA-SMI has failed because it could not communicate with the driver' >&2; exit 9; fi\n"
            + "case \"$1\" in\n"
            + "  --query-gpu=timestamp,*) cat \"$d/telemetry.csv\" ;;\n"
            + "  *) cat \"$d/discovery.csv\" ;;\n"
            + "esac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    static OpenOrder ask(final long orderId, final int gpus, final String price)
    {
        return OpenOrder.newBuilder().setOrderId(orderId).setMarket("").setSide(io.gpux.proto.v1.Side.ASK)
            .setPrice(Money.parsePrice(price)).setOpenGpus(gpus).build();
    }

    /** The portfolio's asks, without market and machine, to compare with {@link #ask}. */
    static List<OpenOrder> asks(final Portfolio p)
    {
        final List<OpenOrder> asks = new ArrayList<>();
        for (final OpenOrder o : p.getOrdersList())
        {
            if (o.getSide() == io.gpux.proto.v1.Side.ASK)
            {
                asks.add(o.toBuilder().setMarket("").setMachineId(0).build());
            }
        }
        return asks;
    }

    static void createMarket(final CreateMarket.Builder market) throws Exception
    {
        final Response r = admin.call(Envelope.newBuilder().setCreateMarket(market), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
    }

    static String[] account(final String name, final Role role, final long money) throws Exception
    {
        return account(admin, name, role, money);
    }

    /** Creates an account with a key and money (whole units); returns {keyId, secret}. */
    static String[] account(final GpuxClient adminClient, final String name, final Role role, final long money)
        throws Exception
    {
        Response r = adminClient.call(Envelope.newBuilder().setCreateAccount(
            CreateAccount.newBuilder().setName(name).addRoles(role)), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        if (money > 0)
        {
            r = adminClient.call(Envelope.newBuilder().setDeposit(
                Deposit.newBuilder().setAccount(name).setAmount(money * 1_000_000)), TIMEOUT);
            assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        }
        r = adminClient.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(name)), TIMEOUT);
        assertEquals(Reason.REASON_OK, r.getReason(), r.toString());
        return new String[] {Long.toString(r.getAssignedId()), r.getSecret()};
    }

    GpuxClient client(final String[] key, final ClientListener listener) throws Exception
    {
        final GpuxClient c = connect(exchange.port(), Long.parseLong(key[0]), key[1], listener);
        closeAfter.add(c);
        return c;
    }

    static GpuxClient connect(final int port, final long keyId, final String secret, final ClientListener listener)
        throws Exception
    {
        final GpuxClient c = new GpuxClient(new ClientContext().port(port).keyId(keyId).secretHex(secret)
            .listener(listener).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).errorHandler(t -> { }));
        c.connect();
        return c;
    }

    /**
     * Waits until the agent has run at least this many whole cycles (heartbeat, then reclaim or ask) after the call: a
     * cycle heartbeats before it keeps its ask, so the heartbeat after them comes after their ask. The positive marker a
     * "nothing changed" assertion waits for.
     */
    void awaitFullCycles(final OwnerAgent agent, final int cycles) throws Exception
    {
        final long heartbeats = agent.heartbeats();
        await(cycles + " more cycles of the agent", () -> agent.heartbeats() >= heartbeats + cycles + 1);
    }

    /**
     * Waits until the condition holds; while it does not, moves the agents' clock one heartbeat interval per poll
     * and wakes them, so that the next interval is due at once.
     */
    void await(final String what, final Condition condition) throws Exception
    {
        // generous: a loaded 2-core machine runs the fake nvidia-smi slowly
        final long deadline = System.nanoTime() + 2 * TIMEOUT.toNanos();
        while (!condition.test())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting until " + what);
            }
            clock.advance(INTERVAL.toNanos());
            for (final OwnerAgent agent : agents)
            {
                agent.wake();
            }
            Thread.sleep(5);
        }
    }

    interface Condition
    {
        boolean test() throws Exception;
    }

    /** An account's events. */
    static final class Recorder implements ClientListener
    {
        final List<AccountEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(final AccountEvent event)
        {
            events.add(event);
        }

        boolean has(final AccountEvent.KindCase kind)
        {
            return has(e -> e.getKindCase() == kind);
        }

        boolean has(final java.util.function.Predicate<AccountEvent> test)
        {
            return events.stream().anyMatch(test);
        }

        AccountEvent first(final AccountEvent.KindCase kind)
        {
            return events.stream().filter(e -> e.getKindCase() == kind).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " in " + events));
        }
    }

    /** What the agent reported, as short lines. */
    static final class Reports implements OwnerAgentListener
    {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void onRegistered(final long machineId, final String name, final String market, final int gpus)
        {
            lines.add("registered " + name + " " + market + " " + gpus);
        }

        @Override
        public void onMachineOnline(final long machineId)
        {
            lines.add("online " + machineId);
        }

        @Override
        public void onLeaseStarted(final long leaseId, final int gpus, final long price)
        {
            lines.add("lease " + leaseId + " " + gpus + " " + Money.formatPrice(price));
        }

        @Override
        public void onAskReplaced(final long orderId, final int openGpus, final long price)
        {
            lines.add("replaced " + orderId + " " + openGpus + " " + Money.formatPrice(price));
        }

        @Override
        public void onReclaimed(final long orderId)
        {
            lines.add("reclaimed " + orderId);
        }

        @Override
        public void onResumed()
        {
            lines.add("resumed");
        }

        @Override
        public void onTelemetryFailed(final NvidiaSmiException error)
        {
            lines.add("nvidia-smi failed: " + error.getMessage());
        }

        @Override
        public void onTelemetryRecovered()
        {
            lines.add("nvidia-smi recovered");
        }
    }
}
