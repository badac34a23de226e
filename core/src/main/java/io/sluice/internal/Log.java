package io.sluice.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.ResourceBundle;

/**
 * Sluice's one way of logging: the JDK's {@link System.Logger}, so that what Sluice says reaches the
 * container's own log without the application adding anything. The JDK routes it to
 * {@code java.util.logging}, which Tomcat (JULI), Jetty's and Undertow's default set-up, WildFly (JBoss
 * LogManager), Payara and Open Liberty all write to their log; an application that installs a
 * {@code System.LoggerFinder} (such as {@code slf4j-jdk-platform-logging} or {@code log4j-jpl}) gets it there
 * instead. SLF4J needs a provider on the class path, and a WAR with Sluice's jars has none: it would print
 * one warning and discard everything after.
 *
 * <p>Messages take SLF4J-style {@code {}} placeholders, filled in only when the level is enabled. It is a
 * {@code System.Logger} itself only so that {@code java.util.logging}, which names the class and method that
 * logged (Tomcat prints them on every line), skips its frames as logging infrastructure and names Sluice's
 * code instead of this class.
 */
public final class Log implements Logger {
    private final Logger logger;

    public Log(Logger logger) {
        this.logger = Objects.requireNonNull(logger);
    }

    /** The logger named after {@code owner}'s class, as the containers' configurations expect. */
    public static Log of(Class<?> owner) {
        return new Log(System.getLogger(owner.getName()));
    }

    public boolean isWarnEnabled() {
        return logger.isLoggable(Level.WARNING);
    }

    @Override
    public String getName() {
        return logger.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return logger.isLoggable(level);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
        logger.log(level, bundle, message, thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        logger.log(level, bundle, format, params);
    }

    public void debug(String message, Throwable thrown) {
        if (logger.isLoggable(Level.DEBUG)) logger.log(Level.DEBUG, message, thrown);
    }

    public void info(String message, Object... args) {
        if (logger.isLoggable(Level.INFO)) logger.log(Level.INFO, format(message, args));
    }

    public void warn(String message, Object... args) {
        if (logger.isLoggable(Level.WARNING)) logger.log(Level.WARNING, format(message, args));
    }

    public void warn(String message, Throwable thrown) {
        if (logger.isLoggable(Level.WARNING)) logger.log(Level.WARNING, message, thrown);
    }

    public void error(String message, Throwable thrown) {
        if (logger.isLoggable(Level.ERROR)) logger.log(Level.ERROR, message, thrown);
    }

    /**
     * Replaces each {@code {}} with the next argument. Never through MessageFormat (which
     * the logger would use given arguments): a message quoting user input with braces or apostrophes must
     * come out as written.
     */
    static String format(String message, Object... args) {
        if (args == null || args.length == 0) return message;
        StringBuilder out = new StringBuilder(message.length() + 16 * args.length);
        int from = 0;
        int next = 0;
        for (int at = message.indexOf("{}"); at >= 0 && next < args.length; at = message.indexOf("{}", from)) {
            out.append(message, from, at).append(args[next++]);
            from = at + 2;
        }
        return out.append(message, from, message.length()).toString();
    }
}
