#pragma once
// The saved output of an EC2 command of the AWS CLI (`aws ec2 describe-... > file.json`), as
// prices/block_offerings.hpp and prices/spot_history.hpp read it: one object holding a list
// under the command's key and, when the output is one page of several, a NextToken; members in
// PascalCase (the CLI's spelling of the EC2 API's members). What is shared: the list with its
// checks, the typed members, a zone's region and reading several files as one output.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/prices/price_list.hpp"

namespace trnmodel::detail {

// "us-east-2a" -> "us-east-2"; a Local Zone "us-west-2-lax-1a" -> "us-west-2"; "us-gov-west-1a" ->
// "us-gov-west-1": the zone's name up to the first part that starts with a digit, and that
// part's digits. "" when the name has no such part.
inline std::string region_of_zone(const std::string& zone) {
  std::size_t start = 0;
  while (start < zone.size()) {
    const std::size_t dash = zone.find('-', start);
    const std::size_t end = dash == std::string::npos ? zone.size() : dash;
    if (start < end && zone[start] >= '0' && zone[start] <= '9') {
      std::size_t digits = start;
      while (digits < end && zone[digits] >= '0' && zone[digits] <= '9') ++digits;
      return start == 0 ? std::string() : zone.substr(0, digits);
    }
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  return std::string();
}

// A whole number in the documents of the EC2 API (InstanceCount, CapacityBlockDurationHours).
inline int ec2_whole(const ordered_json& object, const std::string& key, const std::string& path, bool required,
                     int minimum) {
  const auto it = object.find(key);
  const std::string at = price_list_path(path, key);
  if (it == object.end() || it->is_null()) {
    if (required) fail(at, "required in an offering, absent");
    return 0;
  }
  if (!it->is_number_integer() && !it->is_number_unsigned())
    fail(at, "must be a whole number, got " + describe_json(*it));
  const auto value = it->get<long long>();
  if (value < minimum || value > 1000000)
    fail(at, "must be a whole number from " + std::to_string(minimum) + " to 1000000, got " + std::to_string(value));
  return static_cast<int>(value);
}

inline std::string ec2_string(const ordered_json& object, const std::string& key, const std::string& path,
                              bool required, const char* what) {
  const auto it = object.find(key);
  const std::string at = price_list_path(path, key);
  if (it == object.end() || it->is_null()) {
    if (required) fail(at, std::string("required in ") + what + ", absent");
    return std::string();
  }
  return json_string(*it, at);
}

// The list under `key` of an output of `command` (e.g. "describe-spot-price-history"); sets
// `next_token` when the output says it is one page of several.
inline const ordered_json& ec2_list(const ordered_json& doc, const std::string& file, const std::string& command,
                                    const std::string& key, const std::string& items_are, std::string& next_token) {
  check_json_depth(doc, file);
  if (!doc.is_object() || !doc.contains(key))
    fail(file,
         "not the output of aws ec2 " + command + ": expected an object with " + key + ", got " + describe_json(doc));
  const ordered_json& items = doc.at(key);
  if (!items.is_array()) fail(file + ": " + key, "must be an array of " + items_are + ", got " + describe_json(items));
  const std::string token = ec2_string(doc, "NextToken", file + ": ", false, "the output");
  if (!token.empty()) next_token = token;
  return items;
}

// Reads each of `files` strictly and hands its document to `read(document, file)`; `what`
// names the files in messages ("capacity block offerings"), `argument` the list itself.
template <class Read> void read_ec2_output_files(const std::vector<std::string>& files, const std::string& argument,
                                                 const std::string& what, Read&& read) {
  if (files.empty()) fail(argument, "must name at least one file, got none");
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot open the " + what + " file");
    std::ostringstream text;
    text << in.rdbuf();
    read(parse_strict_json(text.str(), file), file);
  }
}

}  // namespace trnmodel::detail
