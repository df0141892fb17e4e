package io.gpux.client.cli;

import com.google.protobuf.ByteString;
import io.gpux.client.ClientContext;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.client.GpuxSessionException;
import io.gpux.client.LoginSigner;
import io.gpux.client.RequestFailedException;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command that logs in to the gateway: the connection options, {@code --json}, and the mapping of
 * every failure to a message and an exit status (0 done, 1 refused by the exchange, 2 bad usage,
 * 3 connection or login failure), never a stack trace.
 */
abstract class ClientCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--json", order = 100, description = "one JSON object per line instead of text")
    boolean json;

    /** The command's work, once the options are parsed. */
    abstract int execute() throws Exception;

    @Override
    public final Integer call()
    {
        try
        {
            return execute();
        }
        catch (final CliException ex)
        {
            err().println(name() + ": " + ex.getMessage());
            return ex.status();
        }
        catch (final RequestFailedException ex)
        {
            err().println(name() + ": refused: " + ex.getMessage());
            return CliException.REJECTED;
        }
        catch (final GpuxSessionException ex)
        {
            err().println(name() + ": the gateway ended the session: " + ex.getMessage());
            return CliException.CONNECTION;
        }
        catch (final IOException ex)
        {
            err().println(name() + ": cannot reach the gateway at " + connection.host + ":" + connection.port + ": "
                + ex.getMessage());
            return CliException.CONNECTION;
        }
        catch (final TimeoutException ex)
        {
            err().println(name() + ": " + ex.getMessage());
            return CliException.CONNECTION;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err().println(name() + ": interrupted");
            return 130;
        }
        catch (final IllegalStateException ex)
        {
            // the client refuses a query while disconnected
            err().println(name() + ": " + ex.getMessage());
            return CliException.CONNECTION;
        }
        catch (final Exception ex)
        {
            err().println(name() + ": failed: " + ex);
            return CliException.REJECTED;
        }
        finally
        {
            out().flush();
            err().flush();
        }
    }

    PrintWriter out()
    {
        return spec.commandLine().getOut();
    }

    PrintWriter err()
    {
        return spec.commandLine().getErr();
    }

    /** The command's name as typed, e.g. {@code gpux admin deposit}. */
    String name()
    {
        return spec.qualifiedName();
    }

    Duration timeout()
    {
        return Duration.ofMillis(connection.timeoutMs);
    }

    /** The environment of the {@link GpuxCli} at the root (injectable for tests). */
    Map<String, String> env()
    {
        CommandLine root = spec.commandLine();
        while (root.getParent() != null)
        {
            root = root.getParent();
        }
        return root.getCommand() instanceof GpuxCli cli ? cli.env() : System.getenv();
    }

    /** Connects and logs in, the listener attached before the login. */
    GpuxClient connect(final ClientListener listener) throws CliException, IOException, InterruptedException
    {
        return connect(listener, ctx -> { });
    }

    GpuxClient connect(final ClientListener listener, final Consumer<ClientContext> settings)
        throws CliException, IOException, InterruptedException
    {
        return open(newClient(listener, settings));
    }

    /**
     * Connects with the key if one is given (--key-file, or GPUX_KEY_ID and GPUX_SECRET), else as a
     * market-data session, which needs no key and may only read market data.
     */
    GpuxClient connectForMarketData(final ClientListener listener) throws CliException, IOException, InterruptedException
    {
        return open(newClient(listener, ctx -> { }, !Credentials.given(connection.keyFile, env())));
    }

    /**
     * A client of the connection options, not connected yet: for a caller that attaches its listeners
     * before the Login, so that nothing the exchange sends at the Login is missed; then {@link #open}.
     */
    GpuxClient newClient(final ClientListener listener, final Consumer<ClientContext> settings) throws CliException
    {
        return newClient(listener, settings, false);
    }

    private GpuxClient newClient(final ClientListener listener, final Consumer<ClientContext> settings,
        final boolean marketData) throws CliException
    {
        final Credentials key = marketData ? null : Credentials.resolve(connection.keyFile, env());
        final TlsChoice tls = TlsChoice.resolve(connection, env());
        if (connection.port < 1 || connection.port > 65_535)
        {
            throw CliException.usage("--port must be 1 to 65535, got " + connection.port);
        }
        final PrintWriter err = err();
        final ClientContext ctx = new ClientContext()
            .host(connection.host)
            .port(connection.port)
            .listener(listener)
            .clientName("gpux-cli")
            .connectTimeout(timeout())
            .loginTimeout(timeout())
            .errorHandler(t -> err.println(name() + ": " + t));
        if (key == null)
        {
            ctx.marketData();
        }
        else
        {
            ctx.keyId(key.keyId()).secretHex(key.secretHex());
            warmUpLogin(key);
        }
        tls.applyTo(ctx);
        settings.accept(ctx);
        final GpuxClient client;
        try
        {
            client = new GpuxClient(ctx);
        }
        catch (final IllegalArgumentException ex)
        {
            // the settings' checks: a malformed fingerprint, an unreadable CA file
            throw CliException.usage(ex.getMessage());
        }
        return client;
    }

    /** Connects and logs in a client of {@link #newClient}; closes it if that fails. */
    GpuxClient open(final GpuxClient client) throws CliException, IOException, InterruptedException
    {
        try
        {
            client.connect();
        }
        catch (final GpuxSessionException ex)
        {
            client.close();
            throw CliException.connection("login refused: " + ex.getMessage());
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            client.close();
            throw ex;
        }
        return client;
    }

    /**
     * Loads what signing and encoding the Login needs before the connection is open: the gateway closes
     * a connection that has not logged in within two heartbeat intervals, which a cold JVM on a busy
     * machine can otherwise miss.
     */
    private static void warmUpLogin(final Credentials key)
    {
        final byte[] nonce = new byte[LoginSigner.NONCE_BYTES];
        final byte[] signature = LoginSigner.sign(LoginSigner.parseSecret(key.secretHex()), key.keyId(), 0, nonce);
        Envelope.newBuilder().setLogin(Login.newBuilder().setKeyId(key.keyId()).setNonce(ByteString.copyFrom(nonce))
            .setSignature(ByteString.copyFrom(signature))).build().toByteArray();
    }

    /**
     * Sends a command, waits for its Response, prints the events it caused and the result.
     *
     * @return 0 if the exchange did it, 1 if it refused.
     */
    int submit(final GpuxClient client, final EventCollector events, final Envelope.Builder request,
        final Json resultFields) throws IOException, InterruptedException, TimeoutException
    {
        return submit(client, events, request, resultFields, null);
    }

    /** What the CLI can add to a refusal: the numbers and the fix, in one line (null: nothing to add). */
    interface RejectHint
    {
        String explain(Reason reason) throws IOException, InterruptedException, TimeoutException;
    }

    /** {@link #submit(GpuxClient, EventCollector, Envelope.Builder, Json)}, a refusal's result line ending with its hint. */
    int submit(final GpuxClient client, final EventCollector events, final Envelope.Builder request,
        final Json resultFields, final RejectHint hint) throws IOException, InterruptedException, TimeoutException
    {
        final Response response = client.call(request, timeout());
        printEvents(events.eventsOf(response));
        final String explained = hint == null || response.getReason() == Reason.REASON_OK ? null
            : explain(hint, response.getReason());
        return printResult(response, resultFields, explained);
    }

    /** The hint, or null when the queries behind it fail: the refusal is still reported, without its numbers. */
    private String explain(final RejectHint hint, final Reason reason) throws InterruptedException
    {
        try
        {
            return hint.explain(reason);
        }
        catch (final IOException | TimeoutException | RuntimeException ex)
        {
            err().println(name() + ": cannot work out the numbers behind " + reason + ": " + ex.getMessage());
            return null;
        }
    }

    void printEvents(final List<AccountEvent> events)
    {
        for (final AccountEvent e : events)
        {
            out().println(json ? EventFormat.json(e).toString() : EventFormat.human(e));
        }
    }

    /**
     * The result line: {@code OK <command> key=value...} or {@code REJECTED <command> reason=... }, or as
     * JSON {@code {"type":"result","command":...,"ok":...,"reason":...,...}}.
     *
     * @return 0 if the Response says OK, 1 otherwise.
     */
    int printResult(final Response response, final Json fields)
    {
        return printResult(response, fields, null);
    }

    /** {@link #printResult(Response, Json)} with a refusal's hint: {@code ...: HINT}, or {@code "hint"} in JSON. */
    int printResult(final Response response, final Json fields, final String hint)
    {
        final boolean ok = response.getReason() == Reason.REASON_OK;
        final String command = commandPath();
        if (json)
        {
            final Json j = new Json().put("type", "result").put("command", command).put("ok", ok)
                .put("reason", response.getReason().name()).putPositive("command_seq", response.getCommandSeq())
                .putPositive("assigned_id", response.getAssignedId()).putText("message", response.getMessage())
                .putText("hint", hint);
            out().println(fields == null ? j : j.putAll(fields));
        }
        else
        {
            final StringBuilder sb = new StringBuilder(ok ? "OK " : "REJECTED ").append(command);
            if (!ok)
            {
                sb.append(" reason=").append(response.getReason().name());
            }
            if (fields != null)
            {
                sb.append(' ').append(fields.human());
            }
            if (response.getCommandSeq() != 0)
            {
                sb.append(" command_seq=").append(response.getCommandSeq());
            }
            if (!response.getMessage().isEmpty())
            {
                sb.append(" (").append(response.getMessage()).append(')');
            }
            if (hint != null)
            {
                sb.append(": ").append(hint);
            }
            out().println(sb.toString().trim());
        }
        return ok ? 0 : CliException.REJECTED;
    }

    /** The command's path below {@code gpux}, e.g. {@code admin deposit}. */
    String commandPath()
    {
        final String qualified = spec.qualifiedName(" ");
        final int space = qualified.indexOf(' ');
        return space < 0 ? qualified : qualified.substring(space + 1);
    }
}
