package io.gpux.client.e2e;

import io.gpux.client.GpuxClient;
import io.gpux.common.Money;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.EndReason;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.gpux.client.e2e.E2e.TIMEOUT;
import static io.gpux.client.e2e.E2e.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpux agent} as a real process, stopped by real signals: SIGINT stops it gracefully (the
 * renter's lease ends OWNER_RECLAIMED, then the agent exits 0); SIGTERM then SIGINT stops it at once,
 * saying which lease it abandons, with exit status 4. The tests share one server process, each with
 * accounts and a market of its own.
 */
@DisabledOnOs(OS.WINDOWS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AgentProcessStopEndToEndTest
{
    @RegisterExtension
    static final SharedServer SHARED = new SharedServer("agent-stop.scn", 1000);

    @TempDir
    Path dir;

    @RegisterExtension
    final DumpOnFailure dump = new DumpOnFailure();

    private ServerProcess server;
    private AgentProcess agent;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Recorder renterEvents = new Recorder("renter");
    private GpuxClient renter;
    private Path ownerKeyFile;

    @BeforeEach
    void openAccounts() throws Exception
    {
        server = SHARED.server();
        dump.register("server", server::log);
        final GpuxClient admin = E2e.connect(server.port(), server.adminKey(), new Recorder("admin"));
        closeables.add(admin);
        final E2e.Key owner = E2e.account(admin, SHARED.name("owner"), Role.OWNER, 0);
        ownerKeyFile = Files.writeString(dir.resolve("owner.key"), owner.id() + ":" + owner.secret() + "\n");
        renter = E2e.connect(server.port(), E2e.account(admin, SHARED.name("renter"), Role.RENTER, 1_000_000_000L), renterEvents);
        closeables.add(renter);
    }

    @AfterEach
    void tearDown()
    {
        E2e.closeQuietly(agent);
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            E2e.closeQuietly(closeables.get(i));
        }
    }

    @Test
    void sigintStopsGracefullyAfterTheLeaseEndedAndExitsZero() throws Exception
    {
        startAgent("STOP-MID", "--json");
        awaitOut("\"event\":\"ask\"");
        final long lease = leaseOneGpu("STOP-MID");
        awaitOut("\"event\":\"lease_started\",\"lease_id\":" + lease);

        signal("INT");
        awaitOut("\"event\":\"stop_waiting\",\"leases\":1");
        assertTrue(agent.process().waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the agent exits");
        assertEquals(0, agent.process().exitValue(), out());
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(EndReason.OWNER_RECLAIMED, ended.getLeaseEnded().getReason());

        final String out = out();
        final int leaseEnded = out.indexOf("\"event\":\"lease_ended\",\"lease_id\":" + lease + ",\"reason\":\"OWNER_RECLAIMED\"");
        final int stopDone = out.indexOf("\"event\":\"stop_done\"");
        assertTrue(out.indexOf("\"event\":\"reclaimed\"") > 0 && leaseEnded > 0 && stopDone > leaseEnded, out);
        assertTrue(out.strip().endsWith("}") && out.lines().reduce((a, b) -> b).orElseThrow().contains("\"event\":\"stopped\""), out);
    }

    @Test
    void sigtermThenSigintStopsAtOnceSayingWhichLeaseItAbandons() throws Exception
    {
        startAgent("STOP-SLOW");
        awaitOut("  ask: order ");
        final long lease = leaseOneGpu("STOP-SLOW");
        awaitOut("  lease_started: lease " + lease);

        signal("TERM");
        awaitOut("  stopping: waiting for 1 lease to end after their notice (at most 35 s); Ctrl-C again to stop now\n");
        signal("INT");
        assertTrue(agent.process().waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the agent exits at once");
        assertEquals(4, agent.process().exitValue(), out());
        assertTrue(out().contains("  stopping now: 1 lease on p1 will end MACHINE_OFFLINE without notice once the exchange "
            + "misses the heartbeats"), out());
        final AccountEvent ended = renterEvents.await("the lease's end", TIMEOUT,
            e -> e.getKindCase() == AccountEvent.KindCase.LEASE_ENDED);
        assertEquals(EndReason.MACHINE_OFFLINE, ended.getLeaseEnded().getReason(), "the notice ran 30 s, the heartbeats 4 s");
    }

    // ------------------------------------------------------------------------------------------

    private void startAgent(final String market, final String... extra) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("--market", market, "--name", "p1", "--interval", "200ms",
            "--reserve", "1"));
        args.addAll(List.of(extra));
        agent = AgentProcess.start(dir, dir.resolve("agent.out"), server.port(), ownerKeyFile, args.toArray(String[]::new));
        dump.register("agent", agent::out);
    }

    private long leaseOneGpu(final String market) throws Exception
    {
        ok(renter, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder().setOrderId(1).setMarket(market).setGpus(1)
            .setPrice(Money.parsePrice("1.0"))));
        return renterEvents.await("the lease", TIMEOUT, e -> e.getKindCase() == AccountEvent.KindCase.LEASE_STARTED)
            .getLeaseStarted().getLeaseId();
    }

    private void signal(final String name) throws Exception
    {
        agent.signal(name);
    }

    private void awaitOut(final String text)
    {
        agent.awaitOut(text);
    }

    private String out()
    {
        return agent.out();
    }
}
