package io.gpux.gateway.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.net.BindException;

/**
 * The exchange's counters for Prometheus: {@code GET /metrics} on its own port, in the Prometheus text
 * format (and OpenMetrics, when the scraper asks for it), served by the Prometheus client's HTTP server
 * on a thread of its own. It reads the same counters as {@code gpux stat}; nothing is counted twice.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    private final HTTPServer server;

    private MetricsEndpoint(final HTTPServer server)
    {
        this.server = server;
    }

    /**
     * Serves the counters on {@code bind:port} (port 0: any free one).
     *
     * @throws BindException with a one-line reason when the port cannot be had.
     */
    public static MetricsEndpoint start(final String bind, final int port, final CountersReader counters,
        final EpochClock wallClock) throws IOException
    {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new CountersCollector(counters, wallClock));
        try
        {
            return new MetricsEndpoint(HTTPServer.builder().hostname(bind).port(port).registry(registry).buildAndStart());
        }
        catch (final IOException ex)
        {
            final BindException bindFailed = new BindException("cannot serve metrics on " + bind + ":" + port + ": " +
                (ex.getMessage() != null ? ex.getMessage() : ex.getClass().getSimpleName()));
            bindFailed.initCause(ex);
            throw bindFailed;
        }
    }

    /** The port the endpoint listens on. */
    public int port()
    {
        return server.getPort();
    }

    @Override
    public void close()
    {
        server.close();
    }
}
