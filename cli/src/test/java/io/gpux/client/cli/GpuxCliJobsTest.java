package io.gpux.client.cli;

import static io.gpux.client.cli.CliRuns.account;
import static io.gpux.client.cli.CliRuns.adminKey;
import static io.gpux.client.cli.CliRuns.cli;
import static io.gpux.client.cli.CliRuns.dir;
import static io.gpux.client.cli.CliRuns.fakeNvidiaSmi;
import static io.gpux.client.cli.CliRuns.ok;
import static io.gpux.client.cli.CliRuns.poll;
import static io.gpux.client.cli.CliRuns.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.cli.CliRuns.Background;
import io.gpux.client.cli.CliRuns.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** {@code gpux launch}, {@code status}, {@code logs} and {@code run}: renters' jobs on owner agents with the process runtime. */
@DisabledOnOs(OS.WINDOWS)
class GpuxCliJobsTest
{
    /**
     * Two owners' agents with the process runtime, started together, each stopping by itself at the end of its
     * {@code --run-for}: on one a renter launches a job on its lease and reads its status and log, on the other a
     * renter runs a job to the end and a failing job that gives up. The two renters work at once, within the agents'
     * {@code --run-for}, and share the wait for the agents' ends.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void rentersLaunchAndRunJobsOnAgentsThatStopAtTheEndOfTheirRunFor() throws Exception
    {
        final String launchOwner = account("wanda", "OWNER", null);
        final String launchRenter = account("walt", "RENTER", "1000");
        ok(cli("admin", "market", "create", "WL-CLI", "--grace", "500ms", "--key-file", adminKey()));
        final String runOwner = account("rowan", "OWNER", null);
        final String runRenter = account("rhea", "RENTER", "1000");
        ok(cli("admin", "market", "create", "RUN-CLI", "--grace", "500ms", "--key-file", adminKey()));
        // each agent takes SIGINT and SIGTERM and puts back what it found, in whichever order the two end: the JVM's
        // own handlers go back after them
        final Map<Signal, SignalHandler> jvmSignals = new LinkedHashMap<>();
        for (final String name : new String[] {"INT", "TERM"})
        {
            final Signal signal = new Signal(name);
            final SignalHandler handler = Signal.handle(signal, SignalHandler.SIG_DFL);
            Signal.handle(signal, handler);
            jvmSignals.put(signal, handler);
        }
        final Background launchAgent = new Background("agent", "--nvidia-smi", fakeNvidiaSmi(dir()), "--market", "WL-CLI",
            "--name", "wl-node", "--interval", "100ms", "--reserve", "1", "--runtime", "process", "--state-dir",
            dir().resolve("wanda-agent").toString(), "--run-for", "12s", "--key-file", launchOwner);
        final Background runAgent = new Background("agent", "--nvidia-smi", fakeNvidiaSmi(dir()), "--market", "RUN-CLI",
            "--name", "run-node", "--interval", "100ms", "--reserve", "1", "--runtime", "process", "--state-dir",
            dir().resolve("rowan-agent").toString(), "--run-for", "12s", "--key-file", runOwner);

        final CompletableFuture<Void> launched = CompletableFuture.runAsync(() ->
        {
            try
            {
                aRenterLaunchesAJobOnItsLeaseAndReadsItsStatusAndLog(launchOwner, launchRenter);
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
        });
        aRenterRunsAJobToTheEndAndAFailingJobGivesUp(runRenter);
        launched.get(1, TimeUnit.MINUTES);

        assertEquals(0, launchAgent.status.get(1, TimeUnit.MINUTES), () -> "the agent stops gracefully at the end of --run-for: "
            + launchAgent.out + launchAgent.err);
        assertEquals(0, runAgent.status.get(1, TimeUnit.MINUTES), () -> "the agent stops at the end of --run-for: "
            + runAgent.out + runAgent.err);
        jvmSignals.forEach(Signal::handle);
    }

    private static void aRenterLaunchesAJobOnItsLeaseAndReadsItsStatusAndLog(final String owner, final String renter)
        throws Exception
    {
        ok(cli("bid", "--market", "WL-CLI", "--gpus", "1", "--price", "1.0", "--key-file", renter));
        final long lease = (Long)poll("the lease", () -> cli("leases", "--json", "--key-file", renter).json().stream()
            .filter(l -> "lease".equals(l.get("type"))).map(l -> l.get("lease_id")).findFirst().orElse(null));

        final Path job = Files.writeString(dir().resolve("count.yaml"), """
            name: count
            resources: {market: WL-CLI, gpus: 1, maxPrice: 1.0}
            run: {runtime: process, command: 'echo "visible=$CUDA_VISIBLE_DEVICES"; echo "step=$STEP"; echo done'}
            env: {STEP: "7"}
            """);
        Run run = ok(cli("launch", "--lease", Long.toString(lease), job.toString(), "--key-file", renter));
        assertEquals("launched count (process, attempt 1) on lease " + lease + "\n", run.out(), run.toString());
        final Map<String, Object> exited = poll("the job's exit", () ->
        {
            final Map<String, Object> s = ok(cli("status", "--lease", Long.toString(lease), "--json", "--key-file", renter)).last();
            return "EXITED".equals(s.get("state")) ? s : null;
        });
        assertEquals(0L, exited.get("exit_code"), exited.toString());
        run = ok(cli("status", "--lease", Long.toString(lease), "--key-file", renter));
        assertTrue(run.out().startsWith("lease " + lease + ": EXITED with status 0 (since "), run.toString());

        run = ok(cli("logs", "--lease", Long.toString(lease), "--lines", "3", "--key-file", renter));
        assertEquals("visible=GPU-5f1d0c2e-0000-4000-8000-000000000001\nstep=7\ndone\n", run.out(), run.toString());
        assertEquals(List.of("step=7", "done"),
            ok(cli("logs", "--lease", Long.toString(lease), "--lines", "2", "--json", "--key-file", renter)).last().get("lines"));

        run = cli("launch", "--lease", Long.toString(lease), job.toString(), "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        assertEquals("gpux launch: refused: DUPLICATE_ID: lease " + lease + " already has a workload\n", run.err());
        run = cli("logs", "--lease", Long.toString(lease), "--key-file", owner);
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.err().contains("refused: NOT_AUTHORIZED: lease " + lease + " is not rented by this account"), run.toString());
        run = cli("status", "--lease", "999999", "--key-file", renter);
        assertEquals("gpux status: refused: UNKNOWN_LEASE: lease 999999 is not live\n", run.err(), run.toString());
        final Path bad = Files.writeString(dir().resolve("bad.yaml"), Files.readString(job).replace("gpus: 1", "gpus: 0"));
        usageError("resources.gpus: must be 1 to 1024, got 0", "launch", "--lease", "1", bad.toString(), "--key-file", renter);
    }

    private static void aRenterRunsAJobToTheEndAndAFailingJobGivesUp(final String renter) throws Exception
    {
        final Path job = Files.writeString(dir().resolve("run.yaml"), """
            name: three
            resources: {market: RUN-CLI, gpus: 1, maxPrice: 1.5}
            run: {runtime: process, command: 'for i in 1 2 3; do echo "count $i of attempt $GPUX_ATTEMPT"; sleep 0.3; done'}
            """);

        Run run = ok(cli("run", job.toString(), "--log-interval", "100ms", "--key-file", renter));
        final String out = run.out();
        assertTrue(out.startsWith("running three: 1 GPU(s) of RUN-CLI up to 1.5000/GPU-h; Ctrl-C cancels\n"), out);
        final long lease = Long.parseLong(out.replaceAll("(?s).*attempt 1 launched on lease (\\d+)\n.*", "$1"));
        assertTrue(out.contains("attempt 1 on lease " + lease + ": RUNNING\n"), out);
        assertTrue(out.contains("| count 1 of attempt 1\n") || out.contains("| count 2 of attempt 1\n"), out);
        assertTrue(out.contains("attempt 1 on lease " + lease + ": EXITED 0\n"), out);
        assertTrue(out.contains("succeeded: the workload exited 0\n1 attempt(s), 0 failed, 0 interrupted; "), out);
        assertTrue(out.contains("\n  attempt 1 on lease " + lease + ": running "), out);
        assertTrue(out.contains("lease " + lease + " ended: RELEASED\n"), "released at once: " + out);

        final Path failing = Files.writeString(dir().resolve("fail.yaml"), """
            name: fails
            resources: {market: RUN-CLI, gpus: 1, maxPrice: 1.5}
            run: {runtime: process, command: 'echo broken; exit 3'}
            maxFailures: 1
            """);
        run = cli("run", failing.toString(), "--json", "--log-interval", "0", "--key-file", renter);
        assertEquals(1, run.status(), run.toString());
        final Map<String, Object> report = run.last();
        assertEquals("report", report.get("type"), run.toString());
        assertEquals("gave up", report.get("outcome"));
        assertEquals("2 attempts failed (maxFailures 1); the last exited 3", report.get("reason"));
        assertEquals(2L, report.get("failures"));
        assertEquals(2, ((List<?>)report.get("attempts")).size(), run.toString());
        assertTrue(run.json().stream().filter(l -> "launched".equals(l.get("type"))).map(l -> l.get("attempt")).toList()
            .equals(List.of(1L, 2L)), run.toString());

        usageError("resources.gpus: must be 1 to 1024, got 0", "run",
            Files.writeString(dir().resolve("bad-run.yaml"), Files.readString(job).replace("gpus: 1", "gpus: 0")).toString(),
            "--key-file", renter);
    }
}
