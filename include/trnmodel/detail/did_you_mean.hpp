#pragma once
// "did you mean ...?" for unknown keys, so a typo never silently drops an input.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace trnmodel::detail {

// Levenshtein distance (insertions, deletions, substitutions), O(|a| |b|) time, O(|b|) memory.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `key`: within a third of the key's length in edit distance, or
// else one that `key` abbreviates ("trn2.48xl" for "trn2.48xlarge"); "" when none is close.
inline std::string closest_name(std::string_view key, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = std::max<std::size_t>(2, key.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = &candidate;
    }
  }
  if (best == nullptr && key.size() >= 3) {
    for (const auto& candidate : candidates)
      if (candidate.size() > key.size() && candidate.compare(0, key.size(), key) == 0) return candidate;
  }
  return best ? *best : std::string();
}

// " (did you mean X?)" for the closest candidate, else "".
inline std::string did_you_mean(std::string_view key, const std::vector<std::string>& candidates) {
  const std::string best = closest_name(key, candidates);
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

}  // namespace trnmodel::detail
