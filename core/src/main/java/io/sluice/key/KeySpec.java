package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Who shares a limit: one or more key parts joined by {@code +}, such as {@code user+ip}.
 * Immutable and thread-safe.
 */
public record KeySpec(List<Part> parts) {
    public static final String EXPECTED =
            "ip, user, session, global, header:<Name>, param:<name> or cookie:<name>, combined with +";

    /** The kinds of key part. */
    public enum Kind { IP, USER, SESSION, GLOBAL, HEADER, PARAM, COOKIE }

    /** One part: a kind and, for header, param and cookie, a name. */
    public record Part(Kind kind, String name) {
        @Override
        public String toString() {
            return name == null ? kind.name().toLowerCase(Locale.ROOT) : kind.name().toLowerCase(Locale.ROOT) + ":" + name;
        }
    }

    public KeySpec {
        parts = List.copyOf(parts);
    }

    public static final KeySpec IP = new KeySpec(List.of(new Part(Kind.IP, null)));

    public static Optional<KeySpec> parse(String text) {
        String[] pieces = text.split("\\+", -1);
        List<Part> parts = new ArrayList<>();
        for (String raw : pieces) {
            String p = raw.trim();
            int colon = p.indexOf(':');
            String kind = (colon < 0 ? p : p.substring(0, colon)).toLowerCase(Locale.ROOT);
            String name = colon < 0 ? null : p.substring(colon + 1).trim();
            Part part = switch (kind) {
                case "ip" -> name == null ? new Part(Kind.IP, null) : null;
                case "user" -> name == null ? new Part(Kind.USER, null) : null;
                case "session" -> name == null ? new Part(Kind.SESSION, null) : null;
                case "global" -> name == null ? new Part(Kind.GLOBAL, null) : null;
                case "header" -> isToken(name) ? new Part(Kind.HEADER, name) : null;
                case "cookie" -> isToken(name) ? new Part(Kind.COOKIE, name) : null;
                case "param" -> name != null && !name.isEmpty() && name.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '&' && c != '=')
                        ? new Part(Kind.PARAM, name) : null;
                default -> null;
            };
            if (part == null || parts.contains(part)) return Optional.empty();
            parts.add(part);
        }
        return Optional.of(new KeySpec(parts));
    }

    /** Whether every request resolves to the same key. */
    public boolean global() {
        return parts.stream().allMatch(p -> p.kind() == Kind.GLOBAL);
    }

    static boolean isToken(String s) {
        if (s == null || s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) return false;
        }
        return true;
    }

    @Override
    public String toString() {
        return String.join("+", parts.stream().map(Part::toString).toList());
    }
}
