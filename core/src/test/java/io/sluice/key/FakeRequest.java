package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A request for key and engine tests: header names are case-insensitive, as in HTTP. */
public record FakeRequest(String remoteAddress, Map<String, List<String>> headerMap, String queryString,
                   Map<String, String> cookies, String userName, String sessionId) implements RequestView {

    public static FakeRequest from(String remoteAddress) {
        return new FakeRequest(remoteAddress, Map.of(), null, Map.of(), null, null);
    }

    public FakeRequest header(String name, String... values) {
        Map<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.putAll(headerMap);
        List<String> all = new ArrayList<>(h.getOrDefault(name, List.of()));
        all.addAll(List.of(values));
        h.put(name, List.copyOf(all));
        return new FakeRequest(remoteAddress, h, queryString, cookies, userName, sessionId);
    }

    public FakeRequest query(String q) {
        return new FakeRequest(remoteAddress, headerMap, q, cookies, userName, sessionId);
    }

    public FakeRequest cookie(String name, String value) {
        Map<String, String> c = new TreeMap<>(cookies);
        c.put(name, value);
        return new FakeRequest(remoteAddress, headerMap, queryString, c, userName, sessionId);
    }

    public FakeRequest user(String name) {
        return new FakeRequest(remoteAddress, headerMap, queryString, cookies, name, sessionId);
    }

    public FakeRequest session(String id) {
        return new FakeRequest(remoteAddress, headerMap, queryString, cookies, userName, id);
    }

    @Override
    public List<String> headers(String name) {
        for (Map.Entry<String, List<String>> e : headerMap.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) return e.getValue();
        }
        return List.of();
    }

    @Override
    public String cookie(String name) {
        return cookies.get(name);
    }
}
