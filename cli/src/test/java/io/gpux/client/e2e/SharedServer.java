package io.gpux.client.e2e;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One server process for all the tests of a class that leave it running ({@code @RegisterExtension static}):
 * started before the first test on a fresh exchange of the scenario's markets, killed after the last, its
 * directory removed. Each test opens accounts of its own ({@link #name(String)}), so that no test sees another's
 * orders, machines or leases.
 */
final class SharedServer implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback
{
    private final String scenario;
    private final int heartbeatMs;
    private Path dir;
    private ServerProcess server;
    private int test;

    /**
     * @param scenario    the {@code e2e/} resource with the markets (MARKET/CONFIG lines).
     * @param heartbeatMs the session heartbeat interval ({@code --heartbeat-ms}).
     */
    SharedServer(final String scenario, final int heartbeatMs)
    {
        this.scenario = scenario;
        this.heartbeatMs = heartbeatMs;
    }

    @Override
    public void beforeAll(final ExtensionContext context) throws Exception
    {
        dir = Files.createTempDirectory("gpux-e2e-");
        server = new ServerProcess(dir, E2e.resource(scenario, dir), heartbeatMs).start();
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        test++;
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        E2e.closeQuietly(server);
        ChildJvm.deleteTree(dir);
    }

    ServerProcess server()
    {
        return server;
    }

    /** The current test's number in the class, from 1. */
    int test()
    {
        return test;
    }

    /** The name, made the current test's own: {@code name-N} for the class's Nth test. */
    String name(final String name)
    {
        return name + "-" + test;
    }
}
