package io.gpux.client.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * An API key: its id and its secret (64 hex digits). Read from a key file holding
 * {@code <keyId>:<secret hex>} (what {@code gpux server --admin-key-file} and
 * {@code gpux admin key create --out} write), or from the environment variables
 * {@value #ENV_KEY_ID} and {@value #ENV_SECRET}.
 */
record Credentials(long keyId, String secretHex)
{
    static final String ENV_KEY_ID = "GPUX_KEY_ID";
    static final String ENV_SECRET = "GPUX_SECRET";

    /** Whether a key is given at all: a key file, or either of the environment variables. */
    static boolean given(final Path keyFile, final Map<String, String> env)
    {
        return keyFile != null || !isBlank(env.get(ENV_KEY_ID)) || !isBlank(env.get(ENV_SECRET));
    }

    /** The key file if one is given, else the environment; a usage error if neither has a key. */
    static Credentials resolve(final Path keyFile, final Map<String, String> env) throws CliException
    {
        if (keyFile != null)
        {
            final String text;
            try
            {
                text = Files.readString(keyFile, StandardCharsets.UTF_8).trim();
            }
            catch (final NoSuchFileException ex)
            {
                throw CliException.usage("key file " + keyFile + " does not exist");
            }
            catch (final IOException ex)
            {
                throw CliException.usage("cannot read key file " + keyFile + ": " + ex.getMessage());
            }
            final int colon = text.indexOf(':');
            if (colon < 0)
            {
                throw CliException.usage("key file " + keyFile + " must hold <keyId>:<secret hex>");
            }
            return parse(text.substring(0, colon), text.substring(colon + 1), "key file " + keyFile);
        }
        final String id = env.get(ENV_KEY_ID);
        final String secret = env.get(ENV_SECRET);
        if (isBlank(id) && isBlank(secret))
        {
            throw CliException.usage("no credentials: give --key-file FILE (holding <keyId>:<secret>), or set "
                + ENV_KEY_ID + " and " + ENV_SECRET);
        }
        if (isBlank(id) || isBlank(secret))
        {
            throw CliException.usage((isBlank(id) ? ENV_SECRET + " is set but " + ENV_KEY_ID : ENV_KEY_ID + " is set but " + ENV_SECRET)
                + " is not");
        }
        return parse(id, secret, ENV_KEY_ID + "/" + ENV_SECRET);
    }

    static Credentials parse(final String id, final String secret, final String source) throws CliException
    {
        final long keyId;
        try
        {
            keyId = Long.parseLong(id.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw CliException.usage(source + ": the key id must be a number, not '" + id.trim() + "'");
        }
        if (keyId <= 0)
        {
            throw CliException.usage(source + ": the key id must be positive");
        }
        final String hex = secret.trim();
        if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0))
        {
            throw CliException.usage(source + ": the secret must be 64 hex digits");
        }
        return new Credentials(keyId, hex);
    }

    private static boolean isBlank(final String s)
    {
        return s == null || s.isBlank();
    }

    @Override
    public String toString()
    {
        return "Credentials[keyId=" + keyId + "]";
    }
}
