skill "wrong-name" {}
skill "no-description" {}
skill "extra-field" {}
skill "Bad_Name" {} # ERROR: Invalid skill name
skill "missing" {} # ERROR: Skill directory not found
skill "x" { dir = "skills/y" } # ERROR: Skill directory named differently

agent "a" {
  description = "Uses the skills."
  tools {
    use = [skill.wrong-name, skill.revew] # ERROR: Unknown skill
  }
}
