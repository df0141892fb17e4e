package io.gpux.sim;

import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The demo's administrator: creates accounts, API keys and deposits for hundreds of agents, many
 * requests in flight at once (a blocking call per request would take a round trip each).
 */
final class AdminSession implements ClientListener
{
    private final GpuxClient client;
    private final Map<Long, CompletableFuture<Response>> answers = new ConcurrentHashMap<>();

    AdminSession(final GpuxClient client)
    {
        this.client = client;
        client.addListener(this);
    }

    private CompletableFuture<Response> answer(final long requestId)
    {
        return answers.computeIfAbsent(requestId, k -> new CompletableFuture<>());
    }

    @Override
    public void onResponse(final long requestId, final Response response)
    {
        answer(requestId).complete(response);
    }

    /** Sends every request, then waits for every answer; each must be OK. */
    List<Response> all(final List<LongSupplier> requests, final String what) throws IOException, InterruptedException
    {
        final List<CompletableFuture<Response>> pending = new ArrayList<>();
        for (final LongSupplier request : requests)
        {
            pending.add(answer(request.getAsLong()));
        }
        final List<Response> out = new ArrayList<>();
        for (final CompletableFuture<Response> f : pending)
        {
            final Response r;
            try
            {
                r = f.get(60, TimeUnit.SECONDS);
            }
            catch (final Exception ex)
            {
                throw new IOException(what + ": no answer", ex);
            }
            if (r.getReason() != Reason.REASON_OK)
            {
                throw new IOException(what + " refused: " + r.getReason() + " " + r.getMessage());
            }
            out.add(r);
        }
        return out;
    }

    static Role role(final int engineRoles)
    {
        if ((engineRoles & io.gpux.engine.command.Roles.MARKET_MAKER) != 0)
        {
            return Role.MARKET_MAKER;
        }
        if ((engineRoles & io.gpux.engine.command.Roles.OWNER) != 0)
        {
            return Role.OWNER;
        }
        return Role.RENTER;
    }

    GpuxClient client()
    {
        return client;
    }
}
