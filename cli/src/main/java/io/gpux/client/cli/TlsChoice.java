package io.gpux.client.cli;

import io.gpux.client.ClientContext;
import io.gpux.client.GpuxClient;
import java.nio.file.Path;
import java.util.Map;

/**
 * How a command verifies the gateway over TLS, or plain TCP: from the options {@code --tls},
 * {@code --tls-ca FILE}, {@code --tls-fingerprint SHA256:...} if any is given, else from the
 * environment variables {@value #ENV_TLS} ({@code 1} or {@code true}), {@value #ENV_TLS_CA} and
 * {@value #ENV_TLS_FINGERPRINT} (as the key comes from {@code --key-file} or else the environment).
 */
record TlsChoice(boolean tls, Path caFile, String fingerprint)
{
    static final String ENV_TLS = "GPUX_TLS";
    static final String ENV_TLS_CA = "GPUX_TLS_CA";
    static final String ENV_TLS_FINGERPRINT = "GPUX_TLS_FINGERPRINT";

    static TlsChoice resolve(final ConnectionOptions options, final Map<String, String> env) throws CliException
    {
        final TlsChoice choice;
        if (options.tls || options.tlsCa != null || options.tlsFingerprint != null)
        {
            choice = new TlsChoice(options.tls, options.tlsCa, options.tlsFingerprint);
        }
        else
        {
            final String tls = blankToNull(env.get(ENV_TLS));
            if (tls != null && !tls.equals("1") && !tls.equalsIgnoreCase("true") && !tls.equals("0") &&
                !tls.equalsIgnoreCase("false"))
            {
                throw CliException.usage(ENV_TLS + " must be 1 or 0 (true or false), not '" + tls + "'");
            }
            final String ca = blankToNull(env.get(ENV_TLS_CA));
            choice = new TlsChoice("1".equals(tls) || "true".equalsIgnoreCase(tls), ca == null ? null : Path.of(ca),
                blankToNull(env.get(ENV_TLS_FINGERPRINT)));
        }
        if (choice.caFile != null && choice.fingerprint != null)
        {
            throw CliException.usage("verify the gateway by --tls-ca or by --tls-fingerprint (" + ENV_TLS_CA + " or " +
                ENV_TLS_FINGERPRINT + "), not both");
        }
        return choice;
    }

    void applyTo(final ClientContext ctx)
    {
        ctx.tls(tls).tlsCaFile(caFile).tlsFingerprint(fingerprint);
    }

    private static String blankToNull(final String s)
    {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
