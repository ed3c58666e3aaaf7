#pragma once
// The spot price as AWS records it (docs/prices.md, "Spot prices from their history"): the
// saved output of
//   aws ec2 describe-spot-price-history --instance-types p5.48xlarge
//       --product-descriptions Linux/UNIX --start-time 2026-09-01T00:00:00Z > spot.json   (one command)
// which is {SpotPriceHistory: [POINT, ...], NextToken?}, each POINT
//   {AvailabilityZone, InstanceType, ProductDescription, SpotPrice: "31.464000", Timestamp}
// (EC2 API Reference, SpotPrice; the CLI writes its members in PascalCase). Each point is a
// price change: the price holds in its zone from its timestamp until that zone's next point.
// A spot price is not one number, so the quote is a distribution: the price in effect at
// every whole hour of the history (from each zone's first point to the history's last
// timestamp), as an empirical quantity, dated by the last timestamp.
// Keys AWS adds over time are ignored; the keys read are checked for their types.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/calendar.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/ec2_output.hpp"
#include "trnmodel/prices/price_list.hpp"
#include "trnmodel/scenario/fields.hpp"

namespace trnmodel {

/// One price change of the history. A plain value.
struct spot_price_point {
  std::string availability_zone;  ///< e.g. us-east-2a
  std::string instance_type;  ///< e.g. p5.48xlarge
  std::string product_description;  ///< e.g. Linux/UNIX
  std::string timestamp;  ///< as written
  double time_s = 0;  ///< seconds since the epoch
  double usd_per_node_hour = 0;  ///< SpotPrice: USD per instance-hour
  std::string where;  ///< the point's JSON path, for messages
};

/// The points read from one or more saved outputs of describe-spot-price-history. A plain value.
struct spot_price_history {
  std::string file;  ///< the name messages give (a path, or several joined by ", ")
  std::string next_token;  ///< set when an output is one page of several
  std::vector<spot_price_point> points;  ///< in the files' order
};

/// Which prices to take. A plain value.
struct spot_filter {
  std::string instance_type;  ///< e.g. trn2.48xlarge
  std::string region;  ///< a region code (us-east-2); "" for any (then one region must be in the history)
  std::string availability_zone;  ///< one zone; "" for every zone of the region, pooled
  std::string product_description = "Linux/UNIX";  ///< the operating system the price is for
};

/// One zone's history, summarised. A plain value.
struct spot_zone_summary {
  std::string availability_zone;  ///< the zone
  std::size_t changes = 0;  ///< the points of the zone
  std::size_t hours = 0;  ///< the whole hours sampled
  double min_usd = 0;  ///< the lowest price in effect at a sampled hour
  double mean_usd = 0;  ///< the mean over the sampled hours (a time-weighted mean)
  double max_usd = 0;  ///< the highest
  double last_usd = 0;  ///< the price at the history's end
};

/// The spot price read from a history: the hourly prices, the zones, the dates. A plain value.
struct spot_quote {
  std::string instance_type;  ///< the filter's
  std::string region;  ///< the zones' region
  std::string availability_zone;  ///< the filter's zone; "" when the zones are pooled
  std::string product_description;  ///< the filter's
  std::string first;  ///< the earliest timestamp used, as written
  std::string last;  ///< the history's last timestamp, as written
  std::string date;  ///< YYYY-MM-DD of `last`: the quote's date
  std::vector<double> hourly_usd;  ///< the price in effect at each sampled hour, zone after zone
  std::vector<spot_zone_summary> zones;  ///< by zone name
  std::string file;  ///< the name the history was read under

  /// Where the price came from, for the scenario's note (the file by its name only).
  std::string note() const {
    const std::size_t slash = file.find_last_of("/\\");
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    std::string text = "AWS spot price history (describe-spot-price-history " + name + "): " + instance_type + " " +
                       product_description + " in " + (availability_zone.empty() ? region : availability_zone) +
                       ", the price in effect at each of " + std::to_string(hourly_usd.size()) + " hours from " +
                       first + " to " + last;
    if (zones.size() > 1) text += ", zones pooled";
    text += ":";
    for (const auto& z : zones)
      text += " " + z.availability_zone + " " + detail::format_approx(z.min_usd, 4) + "–" +
              detail::format_approx(z.max_usd, 4) + " USD (mean " + detail::format_approx(z.mean_usd, 4) + ", last " +
              detail::format_approx(z.last_usd, 4) + ");";
    text.pop_back();
    return text;
  }

  /// The price as the scenario's `prices.spot_node_hour_usd`: the hourly prices as an empirical
  /// distribution (fixed when the price never moved), `source: quote`, the date and the region.
  quantity to_quantity() const {
    const bool moved = std::any_of(hourly_usd.begin(), hourly_usd.end(), [&](double v) { return v != hourly_usd[0]; });
    const std::string path = path_of(field::prices_spot_node_hour_usd);
    quantity q = moved ? make_empirical(hourly_usd, path) : make_fixed(hourly_usd.at(0), path);
    q.prov() = provenance{"quote", note(), date, region};
    return q;
  }
};

namespace detail {

inline void read_spot_point(const ordered_json& item, const std::string& at, const std::string& file,
                            spot_price_history& out) {
  const std::string path = file + ": " + at;
  if (!item.is_object()) fail(path, "must be a spot price (an object), got " + describe_json(item));
  spot_price_point p;
  p.where = at;
  p.availability_zone = ec2_string(item, "AvailabilityZone", path, true, "a spot price");
  if (region_of_zone(p.availability_zone).empty())
    fail(path + ".AvailabilityZone",
         "must be a zone name such as us-east-2a, got \"" + shorten(p.availability_zone) + "\"");
  p.instance_type = ec2_string(item, "InstanceType", path, true, "a spot price");
  p.product_description = ec2_string(item, "ProductDescription", path, true, "a spot price");
  p.timestamp = ec2_string(item, "Timestamp", path, true, "a spot price");
  const auto t = parse_timestamp(p.timestamp);
  if (!t)
    fail(path + ".Timestamp",
         "must be a timestamp with its zone such as 2026-11-20T08:00:00+00:00, got \"" + shorten(p.timestamp) + "\"");
  p.time_s = *t;
  const std::string price = ec2_string(item, "SpotPrice", path, true, "a spot price");
  p.usd_per_node_hour = parse_price_text(price, path + ".SpotPrice");
  if (!(p.usd_per_node_hour > 0))
    fail(path + ".SpotPrice", "must be a price above 0 USD per hour, got \"" + shorten(price) + "\"");
  out.points.push_back(std::move(p));
}

}  // namespace detail

/// Reads a parsed describe-spot-price-history output and appends its points to `out`.
inline void read_spot_price_history(const ordered_json& doc, const std::string& file, spot_price_history& out) {
  const ordered_json& items =
      detail::ec2_list(doc, file, "describe-spot-price-history", "SpotPriceHistory", "spot prices", out.next_token);
  for (std::size_t i = 0; i < items.size(); ++i)
    detail::read_spot_point(items[i], "SpotPriceHistory[" + std::to_string(i) + "]", file, out);
  out.file = out.file.empty() ? file : out.file + ", " + file;
}

/// Parses the JSON text of a describe-spot-price-history output strictly.
inline spot_price_history parse_spot_price_history(const std::string& text, const std::string& file) {
  spot_price_history out;
  read_spot_price_history(detail::parse_strict_json(text, file), file, out);
  return out;
}

/// Reads the saved outputs `files` (pages, or several queries) as one history.
inline spot_price_history read_spot_price_history_files(const std::vector<std::string>& files) {
  spot_price_history out;
  detail::read_ec2_output_files(
      files, "history", "spot price history",
      [&](const ordered_json& doc, const std::string& file) { read_spot_price_history(doc, file, out); });
  return out;
}

/// The spot price of `filter` from `history`: the price in effect at each whole hour from each
/// matching zone's first point to the history's last timestamp (of any product). input_error when no point
/// matches (naming what the history has) or the matching points span regions.
inline spot_quote quote_spot_price(const spot_price_history& history, const spot_filter& filter) {
  if (filter.instance_type.empty()) detail::fail("instance_type", "required (e.g. trn2.48xlarge), got an empty name");
  const std::string file = history.file.empty() ? std::string("history") : history.file;
  std::map<std::string, std::vector<const spot_price_point*>> by_zone;
  std::vector<std::string> seen;
  // The history ends at its last timestamp, whatever the product: the prices of the other zones
  // and instances say the query reached it, and a price holds until its next change.
  double end_s = -INFINITY;
  const spot_price_point* last = nullptr;
  for (const auto& p : history.points)
    if (p.time_s > end_s) {
      end_s = p.time_s;
      last = &p;
    }
  for (const auto& p : history.points) {
    if (p.instance_type != filter.instance_type || p.product_description != filter.product_description) {
      const std::string what = p.instance_type + " " + p.product_description;
      if (std::find(seen.begin(), seen.end(), what) == seen.end()) seen.push_back(what);
      continue;
    }
    const std::string region = detail::region_of_zone(p.availability_zone);
    if (!filter.region.empty() && region != filter.region) {
      if (std::find(seen.begin(), seen.end(), "zone " + p.availability_zone) == seen.end())
        seen.push_back("zone " + p.availability_zone);
      continue;
    }
    if (!filter.availability_zone.empty() && p.availability_zone != filter.availability_zone) {
      if (std::find(seen.begin(), seen.end(), "zone " + p.availability_zone) == seen.end())
        seen.push_back("zone " + p.availability_zone);
      continue;
    }
    by_zone[p.availability_zone].push_back(&p);
  }
  const std::string wanted = filter.instance_type + " " + filter.product_description +
                             (filter.availability_zone.empty() ? (filter.region.empty() ? "" : " in " + filter.region)
                                                               : " in " + filter.availability_zone);
  if (by_zone.empty()) {
    std::string have;
    for (std::size_t i = 0; i < seen.size() && i < 8; ++i) have += (i ? ", " : "") + seen[i];
    if (seen.size() > 8) have += ", ...";
    detail::fail(file, "no spot price of " + wanted +
                           (have.empty() ? std::string("; the history is empty") : "; the history has " + have) +
                           (history.next_token.empty() ? "" : "; an output is one page of several (NextToken is set)"));
  }
  spot_quote q;
  q.instance_type = filter.instance_type;
  q.availability_zone = filter.availability_zone;
  q.product_description = filter.product_description;
  q.region = detail::region_of_zone(by_zone.begin()->first);
  for (const auto& [zone, points] : by_zone)
    if (detail::region_of_zone(zone) != q.region)
      detail::fail(file, "the spot prices of " + wanted + " span regions (" + q.region + " and " +
                             detail::region_of_zone(zone) + "): give the region");
  q.last = last->timestamp;
  q.date = q.last.substr(0, 10);
  q.file = file;
  double first_s = INFINITY;
  constexpr double hour_s = 3600.0;
  for (auto& [zone, points] : by_zone) {
    std::stable_sort(points.begin(), points.end(),
                     [](const spot_price_point* a, const spot_price_point* b) { return a->time_s < b->time_s; });
    for (std::size_t i = 1; i < points.size(); ++i)
      if (points[i]->time_s == points[i - 1]->time_s &&
          points[i]->usd_per_node_hour != points[i - 1]->usd_per_node_hour)
        detail::fail(file + ": " + points[i]->where, "gives " + zone + " two prices at " + points[i]->timestamp + " (" +
                                                         detail::format_number(points[i - 1]->usd_per_node_hour) +
                                                         " at " + points[i - 1]->where + " and " +
                                                         detail::format_number(points[i]->usd_per_node_hour) + ")");
    if (points.front()->time_s < first_s) {
      first_s = points.front()->time_s;
      q.first = points.front()->timestamp;
    }
    // AWS keeps 90 days of history; a longer span is another kind of file (and a year of hours
    // bounds what a quote holds).
    constexpr double max_span_h = 366.0 * 24.0;
    if (end_s - points.front()->time_s > max_span_h * hour_s)
      detail::fail(file + ": " + points.front()->where,
                   "starts " + std::to_string(static_cast<long long>((end_s - points.front()->time_s) / 86400.0)) +
                       " days before the history's last timestamp; a spot quote reads at most 366 days (AWS keeps 90)");
    spot_zone_summary z;
    z.availability_zone = zone;
    z.changes = points.size();
    z.min_usd = INFINITY;
    z.max_usd = -INFINITY;
    double sum = 0;
    std::size_t k = 0;
    // Whole hours from the zone's first point; the price at t is the last point at or before t.
    for (double t = points.front()->time_s; t <= end_s;
         t = points.front()->time_s + hour_s * static_cast<double>(++z.hours)) {
      while (k + 1 < points.size() && points[k + 1]->time_s <= t) ++k;
      const double price = points[k]->usd_per_node_hour;
      q.hourly_usd.push_back(price);
      sum += price;
      z.min_usd = std::min(z.min_usd, price);
      z.max_usd = std::max(z.max_usd, price);
    }
    z.mean_usd = sum / static_cast<double>(z.hours);
    z.last_usd = points.back()->usd_per_node_hour;
    q.zones.push_back(z);
  }
  return q;
}

}  // namespace trnmodel
