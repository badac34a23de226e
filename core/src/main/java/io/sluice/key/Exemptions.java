package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The requests a rule never limits: its {@code exempt} property, such as
 * {@code ip:10.0.0.0/8, ip:::1, user:monitor, role:admin, attribute:com.example.trusted}, parsed once. A request
 * matching any entry is exempt. Only what the server itself establishes counts: the client address as the
 * {@code ip} key resolves it (a forwarding header only from a trusted proxy), the authenticated user and its roles,
 * and request attributes the application sets. Never a request header: a client can send any header. Immutable and
 * thread-safe.
 */
public final class Exemptions {
    /** The expected form, for error messages. */
    public static final String EXPECTED = "comma-separated ip:<address or CIDR>, user:<name>, role:<role> or "
            + "attribute:<request attribute> such as ip:10.0.0.0/8, ip:::1, user:monitor, role:admin";
    /** No exemption: every request is limited. */
    public static final Exemptions NONE = new Exemptions(List.of(), Set.of(), List.of(), List.of(), "");

    private final List<IpBlock> blocks;
    private final Set<String> users;
    private final List<String> roles;
    private final List<String> attributes;
    private final String text;

    private Exemptions(List<IpBlock> blocks, Set<String> users, List<String> roles, List<String> attributes, String text) {
        this.blocks = List.copyOf(blocks);
        this.users = Set.copyOf(users);
        this.roles = List.copyOf(roles);
        this.attributes = List.copyOf(attributes);
        this.text = text;
    }

    /**
     * Parses the property's value.
     *
     * @param text the comma-separated entries
     * @return the exemptions
     * @throws IllegalArgumentException naming the first entry that is not one of the forms, and why
     */
    public static Exemptions parse(String text) {
        List<IpBlock> blocks = new ArrayList<>();
        List<String> users = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        List<String> attributes = new ArrayList<>();
        for (String raw : text.split(",", -1)) {
            String entry = raw.trim();
            int colon = entry.indexOf(':');
            String kind = (colon < 0 ? entry : entry.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : entry.substring(colon + 1).trim();
            if (entry.isEmpty()) throw new IllegalArgumentException("an empty entry");
            switch (kind) {
                case "ip" -> blocks.add(IpBlock.parse(value).orElseThrow(() -> new IllegalArgumentException(
                        "'" + entry + "' is not " + IpBlock.EXPECTED)));
                case "user" -> users.add(named(entry, value, "a user name"));
                case "role" -> roles.add(named(entry, value, "a role name"));
                case "attribute" -> {
                    if (!visible(value)) throw new IllegalArgumentException("'" + entry + "' needs an attribute name of printable ASCII without spaces");
                    attributes.add(value);
                }
                case "header" -> throw new IllegalArgumentException("'" + entry + "' is a request header, which never exempts: "
                        + "a client can send any header; exempt by ip: (through sluice.trusted-proxies), user:, role: or an "
                        + "attribute: your own filter sets");
                default -> throw new IllegalArgumentException("'" + entry + "' is of no known kind");
            }
        }
        return new Exemptions(blocks, Set.copyOf(users), roles, attributes, text.trim());
    }

    private static String named(String entry, String value, String what) {
        if (value.isEmpty()) throw new IllegalArgumentException("'" + entry + "' needs " + what);
        return value;
    }

    private static boolean visible(String name) {
        return !name.isEmpty() && name.chars().allMatch(c -> c > ' ' && c < 0x7f);
    }

    /** Whether no request is exempt. */
    public boolean none() {
        return blocks.isEmpty() && users.isEmpty() && roles.isEmpty() && attributes.isEmpty();
    }

    /**
     * Whether the request is exempt: an attribute set to true, its user or one of the user's roles, or its client
     * address (as {@code resolver} finds it for the {@code ip} key) in a block.
     *
     * @param request  the request
     * @param resolver the key resolution of the rules in effect (its trusted proxies and client address header)
     * @return whether any entry matches
     */
    public boolean exempts(RequestView request, KeyResolver resolver) {
        for (String a : attributes) if (request.attributeIsTrue(a)) return true;
        if (!users.isEmpty() || !roles.isEmpty()) {
            String user = request.userName();
            if (user != null && !user.isEmpty()) {
                if (users.contains(user)) return true;
                for (String r : roles) if (request.isUserInRole(r)) return true;
            }
        }
        if (blocks.isEmpty()) return false;
        byte[] client = resolver.clientAddress(request);
        for (IpBlock b : blocks) if (b.contains(client)) return true;
        return false;
    }

    @Override
    public String toString() {
        return text;
    }
}
