#pragma once
// The fee of an EC2 Capacity Block for ML as AWS quotes it (docs/prices.md, "Capacity block
// fees"): the saved output of
//   aws ec2 describe-capacity-block-offerings --instance-type p5.48xlarge
//       --instance-count 16 --capacity-duration-hours 336 > offerings.json   (one command)
// which is {CapacityBlockOfferings: [OFFERING, ...], NextToken?}, each OFFERING
//   {CapacityBlockOfferingId, InstanceType, AvailabilityZone, InstanceCount, StartDate,
//    EndDate, CapacityBlockDurationHours, CapacityBlockDurationMinutes?, UpfrontFee: "12345.67",
//    CurrencyCode: "USD", Tenancy, UltraserverType?, UltraserverCount?}
// (EC2 API Reference, CapacityBlockOffering; the CLI writes the API's members in PascalCase).
// The fee is a whole block's, all instances, paid up front; it differs by length, instance
// count, zone and start date, so a fee is quoted for one length and one instance count, and
// the cheapest of the matching offerings is taken, with the range of the others said.
// Keys AWS adds over time are ignored; the keys read are checked for their types.
#include <algorithm>
#include <cmath>
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

/// One capacity block AWS offered: its instances, zone, dates and fee. A plain value.
struct block_offering {
  std::string offering_id;  ///< CapacityBlockOfferingId
  std::string instance_type;  ///< e.g. p5.48xlarge
  std::string availability_zone;  ///< e.g. us-east-2a
  std::string region;  ///< the zone's region, e.g. us-east-2
  int instance_count = 0;  ///< instances (nodes) in the block
  int duration_hours = 0;  ///< the block's length in whole hours (CapacityBlockDurationHours)
  int duration_minutes = 0;  ///< minutes beyond the whole hours (CapacityBlockDurationMinutes; 0 when absent)
  std::string start_date;  ///< as written
  std::string end_date;  ///< as written
  double upfront_fee_usd = 0;  ///< the whole block's fee, all instances, USD
  std::string tenancy;  ///< default or dedicated; "" when not written
  std::string where;  ///< the offering's JSON path, for messages
  /// The fee per instance-hour (one node for one hour) over the block's whole length.
  double usd_per_node_hour() const {
    return upfront_fee_usd / (static_cast<double>(instance_count) * (duration_hours + duration_minutes / 60.0));
  }
};

/// The offerings read from one or more saved outputs of describe-capacity-block-offerings. A plain value.
struct block_offerings {
  std::string file;  ///< the name messages give (a path, or several joined by ", ")
  std::string next_token;  ///< set when an output is one page of several
  std::vector<block_offering> offerings;  ///< in the files' order
};

/// Which fee to quote: an instance type, a node count and a length, and the day the offerings were read
/// (the output carries no date of its own). A plain value.
struct block_fee_filter {
  std::string instance_type;  ///< e.g. trn2.48xlarge
  int instance_count = 0;  ///< the job's nodes
  int hours = 0;  ///< the block's length in whole hours
  std::string region;  ///< a region code (us-east-2); "" for any
  std::string availability_zone;  ///< one zone (us-east-2a); "" for any
  std::string date;  ///< YYYY-MM-DD: the day the offerings were read (required: the quote's date)
};

/// A block's fee taken from the offerings, with what identifies it and the spread of the others. A plain value.
struct block_fee_quote {
  double fee_usd = 0;  ///< the cheapest matching offering's UpfrontFee: the whole block, all nodes
  block_offering offering;  ///< that offering
  std::size_t matching = 0;  ///< how many offerings matched the filter
  double fee_max_usd = 0;  ///< the dearest matching offering's fee
  std::string date;  ///< YYYY-MM-DD: the day the offerings were read
  std::string file;  ///< the name the offerings were read under

  /// Where the fee came from, for the scenario's note (the file by its name only).
  std::string note() const {
    const std::size_t slash = file.find_last_of("/\\");
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    std::string text = "AWS capacity block offering (describe-capacity-block-offerings " + name + ", read " + date +
                       "): " + offering.offering_id + ", " + std::to_string(offering.instance_count) + " × " +
                       offering.instance_type + " in " + offering.availability_zone + " for " +
                       std::to_string(offering.duration_hours) + " h from " + offering.start_date + ", upfront fee " +
                       detail::format_number(fee_usd) + " USD";
    if (matching > 1)
      text += "; the cheapest of " + std::to_string(matching) + " offerings (up to " +
              detail::format_number(fee_max_usd) + " USD)";
    return text;
  }

  /// The fee as the scenario's `prices.block_usd`: fixed, `source: quote`, the date and the region.
  quantity to_quantity() const {
    quantity q = make_fixed(fee_usd, path_of(field::prices_block_usd));
    q.prov() = provenance{"quote", note(), date, offering.region};
    return q;
  }
};

namespace detail {

inline void read_offering(const ordered_json& item, const std::string& at, const std::string& file,
                          block_offerings& out) {
  const std::string path = file + ": " + at;
  if (!item.is_object()) fail(path, "must be an offering (an object), got " + describe_json(item));
  block_offering o;
  o.where = at;
  o.offering_id = ec2_string(item, "CapacityBlockOfferingId", path, false, "an offering");
  o.instance_type = ec2_string(item, "InstanceType", path, true, "an offering");
  o.availability_zone = ec2_string(item, "AvailabilityZone", path, true, "an offering");
  o.region = region_of_zone(o.availability_zone);
  if (o.region.empty())
    fail(path + ".AvailabilityZone",
         "must be a zone name such as us-east-2a, got \"" + shorten(o.availability_zone) + "\"");
  o.instance_count = ec2_whole(item, "InstanceCount", path, true, 1);
  o.duration_hours = ec2_whole(item, "CapacityBlockDurationHours", path, true, 0);
  o.duration_minutes = ec2_whole(item, "CapacityBlockDurationMinutes", path, false, 0);
  if (o.duration_minutes > 59)
    fail(path + ".CapacityBlockDurationMinutes",
         "must be the minutes beyond the whole hours, 0 to 59, got " + std::to_string(o.duration_minutes));
  if (o.duration_hours == 0 && o.duration_minutes == 0)
    fail(path + ".CapacityBlockDurationHours", "must give the block a length, got 0 h and 0 min");
  o.start_date = ec2_string(item, "StartDate", path, true, "an offering");
  o.end_date = ec2_string(item, "EndDate", path, false, "an offering");
  for (const auto& [key, text] : {std::pair<const char*, const std::string*>{"StartDate", &o.start_date},
                                  std::pair<const char*, const std::string*>{"EndDate", &o.end_date}})
    if (!text->empty() && !parse_timestamp(*text))
      fail(path + "." + key,
           "must be a timestamp with its zone such as 2026-12-10T11:30:00+00:00, got \"" + shorten(*text) + "\"");
  const std::string currency = ec2_string(item, "CurrencyCode", path, false, "an offering");
  if (!currency.empty() && currency != "USD")
    fail(path + ".CurrencyCode", "must be USD (trnmodel's costs are in USD), got \"" + shorten(currency) + "\"");
  const std::string fee = ec2_string(item, "UpfrontFee", path, true, "an offering");
  o.upfront_fee_usd = parse_price_text(fee, path + ".UpfrontFee");
  if (!(o.upfront_fee_usd > 0)) fail(path + ".UpfrontFee", "must be a fee above 0 USD, got \"" + shorten(fee) + "\"");
  o.tenancy = ec2_string(item, "Tenancy", path, false, "an offering");
  out.offerings.push_back(std::move(o));
}

}  // namespace detail

/// Reads a parsed describe-capacity-block-offerings output and appends its offerings to `out`;
/// `file` names it in messages.
inline void read_block_offerings(const ordered_json& doc, const std::string& file, block_offerings& out) {
  const ordered_json& items = detail::ec2_list(doc, file, "describe-capacity-block-offerings", "CapacityBlockOfferings",
                                               "offerings", out.next_token);
  for (std::size_t i = 0; i < items.size(); ++i)
    detail::read_offering(items[i], "CapacityBlockOfferings[" + std::to_string(i) + "]", file, out);
  out.file = out.file.empty() ? file : out.file + ", " + file;
}

/// Parses the JSON text of a describe-capacity-block-offerings output strictly.
inline block_offerings parse_block_offerings(const std::string& text, const std::string& file) {
  block_offerings out;
  read_block_offerings(detail::parse_strict_json(text, file), file, out);
  return out;
}

/// Reads the saved outputs `files` (one per length asked, as the CLI asks one length at a time).
inline block_offerings read_block_offerings_files(const std::vector<std::string>& files) {
  block_offerings out;
  detail::read_ec2_output_files(
      files, "offerings", "capacity block offerings",
      [&](const ordered_json& doc, const std::string& file) { read_block_offerings(doc, file, out); });
  return out;
}

/// The fee of a block of `filter.hours` hours for `filter.instance_count` instances: the cheapest
/// matching offering. input_error when none matches, naming the lengths and counts offered.
inline block_fee_quote quote_block_fee(const block_offerings& offers, const block_fee_filter& filter) {
  if (filter.instance_type.empty()) detail::fail("instance_type", "required (e.g. trn2.48xlarge), got an empty name");
  if (filter.instance_count < 1)
    detail::fail("instance_count", "must be a whole number ≥ 1, got " + std::to_string(filter.instance_count));
  if (filter.hours < 1) detail::fail("hours", "must be a whole number ≥ 1, got " + std::to_string(filter.hours));
  if (!detail::is_iso_date(filter.date))
    detail::fail("date", "must be the day the offerings were read, YYYY-MM-DD (the output carries no date), got \"" +
                             detail::shorten(filter.date) + "\"");
  block_fee_quote q;
  std::vector<std::string> others;
  for (const auto& o : offers.offerings) {
    const bool place = (filter.region.empty() || o.region == filter.region) &&
                       (filter.availability_zone.empty() || o.availability_zone == filter.availability_zone);
    if (o.instance_type != filter.instance_type || !place) continue;
    if (o.instance_count != filter.instance_count || o.duration_hours != filter.hours || o.duration_minutes != 0) {
      const std::string what = std::to_string(o.instance_count) + " × " + std::to_string(o.duration_hours) + " h";
      if (std::find(others.begin(), others.end(), what) == others.end()) others.push_back(what);
      continue;
    }
    if (q.matching == 0 || o.upfront_fee_usd < q.fee_usd) {
      q.fee_usd = o.upfront_fee_usd;
      q.offering = o;
    }
    q.fee_max_usd = std::max(q.fee_max_usd, o.upfront_fee_usd);
    ++q.matching;
  }
  if (q.matching == 0) {
    std::string where = filter.availability_zone.empty() ? filter.region : filter.availability_zone;
    std::string why = "no offering of " + std::to_string(filter.instance_count) + " × " + filter.instance_type +
                      " for " + std::to_string(filter.hours) + " h" + (where.empty() ? "" : " in " + where);
    if (others.empty()) {
      why += "; the files offer no " + filter.instance_type + (where.empty() ? "" : " there");
    } else {
      std::string list;
      for (std::size_t i = 0; i < others.size() && i < 8; ++i) list += (i ? ", " : "") + others[i];
      if (others.size() > 8) list += ", ...";
      why += "; they offer " + list + " (instances × length): ask AWS for this length and count";
    }
    if (!offers.next_token.empty()) why += "; an output is one page of several (NextToken is set)";
    detail::fail(offers.file.empty() ? std::string("offerings") : offers.file, why);
  }
  q.date = filter.date;
  q.file = offers.file;
  return q;
}

/// The whole-hour lengths the offerings give for `instance_type` and `instance_count`, ascending.
inline std::vector<int> offered_block_hours(const block_offerings& offers, const std::string& instance_type,
                                            int instance_count) {
  std::vector<int> hours;
  for (const auto& o : offers.offerings)
    if (o.instance_type == instance_type && o.instance_count == instance_count && o.duration_minutes == 0 &&
        std::find(hours.begin(), hours.end(), o.duration_hours) == hours.end())
      hours.push_back(o.duration_hours);
  std::sort(hours.begin(), hours.end());
  return hours;
}

}  // namespace trnmodel
