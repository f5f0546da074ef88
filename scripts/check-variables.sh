# Sourced by the scripts that take settings from the environment: each setting is checked before
# anything runs or is removed, and a bad one ends the script with one line naming the variable and
# exit 2. The caller sets `program` (its name, for the line).

# require_whole_number NAME VALUE MIN: VALUE is a whole number (at most 6 digits) of at least MIN.
require_whole_number() {
  [[ "$2" =~ ^[0-9]{1,6}$ ]] && [ "$((10#$2))" -ge "$3" ] ||
    { echo "$program: error: $1 must be a whole number >= $3 (got '$2')" >&2; exit 2; }
}

# require_one_of NAME VALUE CHOICE...: VALUE is one of the choices ("" for unset counts as one only when listed).
require_one_of() {
  local name=$1 value=$2 choice
  shift 2
  local shown=()
  for choice in "$@"; do
    [ "$value" = "$choice" ] && return 0
    shown+=("${choice:-(unset)}")
  done
  echo "$program: error: $name must be one of: ${shown[*]} (got '$value')" >&2
  exit 2
}

# require_folder_or_absent NAME VALUE: VALUE is non-empty and names a folder or nothing yet.
require_folder_or_absent() {
  [ -n "$2" ] && { [ ! -e "$2" ] || [ -d "$2" ]; } ||
    { echo "$program: error: $1 must name a folder (got '$2')" >&2; exit 2; }
}
