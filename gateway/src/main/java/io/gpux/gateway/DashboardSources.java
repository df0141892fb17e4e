package io.gpux.gateway;

import io.gpux.engine.MatchingEngine;
import io.gpux.core.pipeline.ExchangePipeline;
import io.gpux.core.pipeline.Query;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.auth.LoginThrottle;
import io.gpux.gateway.dashboard.Dashboard;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.MachineTelemetry;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.egress.PortfolioView;
import io.gpux.proto.v1.SessionErrorCode;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Map;

/** How the web dashboard reaches the exchange: reads through the input ring and the egress, sign-ins by key. */
final class DashboardSources implements Dashboard.Sources
{
    private final ExchangePipeline pipeline;
    private final Egress egress;
    private final LoginThrottle loginThrottle;
    private final Directory directory;
    private final Authenticator authenticator;
    private final Map<Long, MachineTelemetry> telemetry;

    DashboardSources(
        final ExchangePipeline pipeline, final Egress egress, final LoginThrottle loginThrottle, final Directory directory,
        final Authenticator authenticator, final Map<Long, MachineTelemetry> telemetry)
    {
        this.pipeline = pipeline;
        this.egress = egress;
        this.loginThrottle = loginThrottle;
        this.directory = directory;
        this.authenticator = authenticator;
        this.telemetry = telemetry;
    }

    @Override
    public boolean query(final Query query)
    {
        return pipeline.tryPublishQuery(query);
    }

    @Override
    public boolean peek(final Egress.Peek peek)
    {
        return egress.offer(peek);
    }

    @Override
    public String throttled(final InetAddress from, final long keyId)
    {
        return loginThrottle.check(from, keyId);
    }

    @Override
    public long signIn(final InetAddress from, final long keyId, final String secretHex)
    {
        final long account = directory.keyAccount(keyId);
        // compared in constant time, and for an unknown key too
        final boolean secretOk = MessageDigest.isEqual(authenticator.secretHex(keyId).getBytes(StandardCharsets.US_ASCII),
            secretHex.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
        if (account != 0 && secretOk)
        {
            return account;
        }
        loginThrottle.onFailure(from, keyId, SessionErrorCode.AUTHENTICATION_FAILED,
            "dashboard sign-in: unknown key or wrong secret");
        return 0;
    }

    @Override
    public long keyAccount(final long keyId)
    {
        return directory.keyAccount(keyId);
    }

    @Override
    public PortfolioView portfolio(final MatchingEngine engine, final long accountId)
    {
        return PortfolioView.copy(engine.account(accountId), engine.lastCommandTime(), directory, telemetry);
    }
}
