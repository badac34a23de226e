package io.sluice.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A throw-away certificate authority and a server certificate for {@code 127.0.0.1}, made at test time with the
 * JDK's own {@code keytool} (nothing to install): PEM files for {@code redis-server}'s TLS settings and a PKCS12
 * trust store for Redisson's {@code sslTruststore}.
 */
public final class TestCertificates {
    public static final String PASSWORD = "changeit";
    public final Path caPem;
    public final Path serverCertPem;
    public final Path serverKeyPem;
    public final Path trustStore;

    private TestCertificates(Path dir) {
        this.caPem = dir.resolve("ca.pem");
        this.serverCertPem = dir.resolve("server.pem");
        this.serverKeyPem = dir.resolve("server.key");
        this.trustStore = dir.resolve("trust.p12");
    }

    public static TestCertificates create(Path dir) {
        TestCertificates c = new TestCertificates(dir);
        Path ca = dir.resolve("ca.p12");
        Path server = dir.resolve("server.p12");
        Path csr = dir.resolve("server.csr");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=Sluice Test CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD, "-rfc", "-file", c.caPem.toString());
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-keystore", server.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-storepass", PASSWORD, "-file", csr.toString());
        keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD, "-infile", csr.toString(),
                "-outfile", c.serverCertPem.toString(), "-rfc", "-validity", "2",
                "-ext", "san=ip:127.0.0.1,dns:localhost", "-ext", "eku=serverAuth");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", c.caPem.toString(), "-keystore", c.trustStore.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD);
        try (InputStream in = Files.newInputStream(server)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            PrivateKey key = (PrivateKey) ks.getKey("server", PASSWORD.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(c.serverKeyPem, pem);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return c;
    }

    private static void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed:\n" + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
