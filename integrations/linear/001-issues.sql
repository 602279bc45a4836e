CREATE TABLE linear_issues (
  id TEXT PRIMARY KEY,
  identifier TEXT NOT NULL,
  title TEXT NOT NULL,
  state TEXT NOT NULL,
  assignee TEXT,
  priority INTEGER,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX linear_issues_state ON linear_issues (state);
