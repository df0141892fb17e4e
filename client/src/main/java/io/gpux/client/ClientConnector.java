package io.gpux.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Connection and reconnect of one {@link GpuxClient}, on its event loop: opens the TCP (or TLS)
 * connection with the context's socket options and pipeline, and schedules the next attempt after
 * a lost one with an exponential backoff that a successful Login resets.
 */
final class ClientConnector
{
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final ReconnectBackoff backoff;
    private ScheduledFuture<?> reconnectTimer;

    ClientConnector(final ClientContext ctx, final EventLoop loop, final ClientConductor conductor)
    {
        this.loop = loop;
        this.backoff = new ReconnectBackoff(ctx.reconnectBackoffInitial().toMillis(), ctx.reconnectBackoffMax().toMillis());
        this.bootstrap = new Bootstrap()
            .group(loop)
            .channel(ctx.socketChannelClass())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.min(Integer.MAX_VALUE, ctx.connectTimeout().toMillis()))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(ctx.writeBufferLowWaterMark(), ctx.writeBufferHighWaterMark()))
            .remoteAddress(ctx.host(), ctx.port())
            .handler(new ClientInitializer(conductor, ctx));
    }

    /** Starts a connection; its channel is the future's, its failure the future's cause. */
    ChannelFuture connect()
    {
        return bootstrap.connect();
    }

    /** Runs {@code reconnect} after the next backoff delay. */
    void scheduleReconnect(final Runnable reconnect)
    {
        reconnectTimer = loop.schedule(() ->
        {
            reconnectTimer = null;
            reconnect.run();
        }, backoff.nextDelayMs(), TimeUnit.MILLISECONDS);
    }

    void cancelReconnect()
    {
        if (reconnectTimer != null)
        {
            reconnectTimer.cancel(false);
            reconnectTimer = null;
        }
    }

    /** A Login went through: the next loss starts again from the initial delay. */
    void onLoggedIn()
    {
        backoff.reset();
    }
}
