package io.gpux.client.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the gateway is and which key to log in with: the options every command that connects has. */
final class ConnectionOptions
{
    @Option(names = "--host", order = 101, paramLabel = "HOST", defaultValue = "127.0.0.1",
        description = "the gateway's host (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", order = 102, paramLabel = "PORT", defaultValue = "7400",
        description = "the gateway's port (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--key-file", order = 103, paramLabel = "FILE",
        description = "the API key, as <keyId>:<secret hex>; default: the environment's GPUX_KEY_ID and GPUX_SECRET")
    Path keyFile;

    @Option(names = "--timeout", order = 104, paramLabel = "DURATION", defaultValue = "10s", converter = Converters.DurationMs.class,
        description = "how long to wait for the login and for each answer (default ${DEFAULT-VALUE})")
    long timeoutMs;

    @Option(names = "--tls", order = 105,
        description = "connect over TLS, trusting the JVM's certificate authorities; default: the environment's " +
            TlsChoice.ENV_TLS + "=1")
    boolean tls;

    @Option(names = "--tls-ca", order = 106, paramLabel = "FILE",
        description = "connect over TLS, trusting the CA certificates of this PEM file (the gateway's certificate must " +
            "name --host); default: the environment's " + TlsChoice.ENV_TLS_CA)
    Path tlsCa;

    @Option(names = "--tls-fingerprint", order = 107, paramLabel = "SHA256:AB:CD:...",
        description = "connect over TLS, accepting only the gateway certificate with this fingerprint (what a " +
            "self-signed gpux server prints at start); default: the environment's " + TlsChoice.ENV_TLS_FINGERPRINT)
    String tlsFingerprint;
}
