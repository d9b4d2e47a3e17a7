package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * Whether the init container the webhook adds passes the namespace's LimitRanges of type Container (max, min,
 * maxLimitRequestRatio), which the API server checks after the webhook: one it fails would make the API server
 * refuse the whole pod. Pod-type limits are not checked (an init container counts only against the largest of
 * the pod's own, which the agent's small one does not raise in practice).
 */
final class LimitRangeFit {
    private LimitRangeFit() {}

    /** The first rule the init container would break, naming the LimitRange and the setting to change, or null. */
    static String violation(WebhookSettings settings, List<LimitRange> limitRanges) {
        for (LimitRange range : limitRanges) {
            if (range.getSpec() == null || range.getSpec().getLimits() == null) {
                continue;
            }
            for (LimitRangeItem item : range.getSpec().getLimits()) {
                if (!"Container".equals(item.getType())) {
                    continue;
                }
                for (String resource : List.of("cpu", "memory")) {
                    String broken =
                            broken(item, resource, settings.initRequest(resource), settings.initLimit(resource));
                    if (broken != null) {
                        return String.format(
                                "the init container would break LimitRange %s (%s %s), so the API server "
                                        + "would refuse the pod; set streamsmemory.webhook.agent.resources.* to fit it",
                                range.getMetadata().getName(), resource, broken);
                    }
                }
            }
        }
        return null;
    }

    private static String broken(LimitRangeItem item, String resource, String request, String limit) {
        BigDecimal requested = amount(request != null ? request : limit); // an unset request defaults to the limit
        BigDecimal limited = amount(limit);
        BigDecimal max = amount(get(item.getMax(), resource));
        BigDecimal min = amount(get(item.getMin(), resource));
        BigDecimal ratio = amount(get(item.getMaxLimitRequestRatio(), resource));
        if (max != null && (limited == null || limited.compareTo(max) > 0)) {
            return "limit " + limit + " above max " + get(item.getMax(), resource);
        }
        if (min != null && (requested == null || requested.compareTo(min) < 0)) {
            return "request " + request + " below min " + get(item.getMin(), resource);
        }
        if (ratio != null
                && (requested == null
                        || limited == null
                        || requested.signum() == 0
                        || limited.divide(requested, 6, RoundingMode.HALF_UP).compareTo(ratio) > 0)) {
            return "limit/request " + limit + "/" + request + " above maxLimitRequestRatio "
                    + get(item.getMaxLimitRequestRatio(), resource);
        }
        return null;
    }

    private static String get(Map<String, Quantity> quantities, String resource) {
        Quantity quantity = quantities == null ? null : quantities.get(resource);
        return quantity == null ? null : quantity.toString();
    }

    private static BigDecimal amount(String quantity) {
        return quantity == null || quantity.isBlank() ? null : Quantity.getAmountInBytes(new Quantity(quantity));
    }
}
